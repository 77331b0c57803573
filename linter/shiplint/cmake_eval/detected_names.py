"""The names of what a compiler detection sets, as they appear in CMake code.

Enabling C and CXX in a project defines these variables (or, for Windows, changes
their values) where a `project(x NONE)` leaves them unset; every other variable is
the same in both (compiler_need.py says how this was measured, and
tests/test_cmake_compiler_need.py measures it again with the real CMakes).
"""

from __future__ import annotations

import re

_LANGUAGE = rb"(?:C|CXX|OBJC|OBJCXX|CUDA|HIP|Fortran|ASM\w*|Swift|ISPC|RC|CSharp|Java)"
DETECTED = re.compile(
    # Per language and per standard: CMAKE_CXX_COMPILER_ID, CMAKE_CXX17_COMPILE_FEATURES.
    rb"\bCMAKE_" + _LANGUAGE + rb"\d*_\w+"
    # A language inside the name: CMAKE_SHARED_LIBRARY_CXX_FLAGS, CMAKE_DEPFILE_FLAGS_C.
    rb"|\bCMAKE_\w*?_" + _LANGUAGE + rb"(?:_\w+)?\b"
    rb"|\bCMAKE_(?:SIZEOF_VOID_P|LIBRARY_ARCHITECTURE\w*|COMPILER_IS_\w+|INTERNAL_PLATFORM_ABI"
    rb"|EXECUTABLE_\w+|EXE_\w+|(?:SHARED|STATIC|IMPORT|FIND|LINK)_LIBRARY_\w+|SHARED_MODULE_\w+"
    rb"|(?:SHARED|STATIC|MODULE)_LINKER_FLAGS\w*|LINK_\w+|LINKER\w*|AR|RANLIB|NM|OBJCOPY"
    rb"|OBJDUMP|STRIP|READELF|ADDR2LINE|DLLTOOL|MT|TAPI|BUILD_TYPE|BUILD_TOOL|GNUtoMS"
    rb"|GNULD_IMAGE_VERSION|PCH_\w+|DEPFILE_\w+|INCLUDE_\w*FLAG\w*|BASE_NAME"
    rb"|SYSTEM_AND_RC_COMPILER_INFO_FILE|EXTRA_LINK_EXTENSIONS|\w*COMPILER\w*"
    # Given for a foreign system with the languages (languages.cross_arguments).
    rb"|INSTALL_NAME_TOOL|TRY_COMPILE_\w+)\b"
    rb"|\b(?:MSVC\w*|MINGW|COMPILER_BASENAME|ENABLED_LANGUAGES)\b"
    # The helper variables CMake's own detection modules leave set.
    rb"|\b(?:_CMAKE_"
    + _LANGUAGE
    + rb"_\w+|_CMAKE_(?:TOOLCHAIN|LINKER)_\w+|_INCLUDED_FILE|_IN_TC|_SET_CMAKE_\w+|__COMPILER_\w+|__LINUX_COMPILER_\w+"
    rb"|__WINDOWS_\w+|__gcc_hints|__lto_flags|__pch_header_\w+|__version_x\w*|__INCGUARD_\w+"
    rb"|_doc|_gcc_help|_gcc_result|_help|_res|_ver)\b"
    # A name made from a variable: CMAKE_${lang}_COMPILER_ID.
    rb"|\bCMAKE_\w*\$\{"
)
