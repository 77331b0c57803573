"""The CMake reader and the symbolic walk, one construct at a time, on small real files."""

from __future__ import annotations

from pathlib import Path

from shiplint.sources.cmake_parse import Command, IfBlock, parse_cmake
from shiplint.sources.interpret import walk_project
from shiplint.sources.model import CMakeProject, TargetDef


def project(tmp_path: Path, files: dict[str, str], exclude: tuple[str, ...] = ()) -> CMakeProject:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return walk_project(tmp_path, (".",), exclude)


def only(p: CMakeProject, name: str) -> TargetDef:
    definitions = p.definitions(name)
    assert len(definitions) == 1, definitions
    return definitions[0]


def test_arguments_keep_line_and_character_column() -> None:
    parsed = parse_cmake(
        'set(X "\xe9") add_library(bar SHARED\n  "a b.cpp" [=[x;y]=] ${V})\n'.encode()
    )
    assert parsed.errors == ()
    command = parsed.statements[1]
    assert isinstance(command, Command)
    assert (command.name, command.line, command.column) == ("add_library", 1, 12)
    assert [(a.text, a.line, a.column, a.quoted, a.bracket) for a in command.args] == [
        ("bar", 1, 24, False, False),
        ("SHARED", 1, 28, False, False),
        ("a b.cpp", 2, 3, True, False),
        ("x;y", 2, 13, True, True),
        ("${V}", 2, 23, False, False),
    ]


def test_syntax_errors_are_located_and_the_rest_is_kept() -> None:
    parsed = parse_cmake(b"add_library(a)\nif(X)\nadd_library(b SHARED)\n")
    assert [(e.line, e.column) for e in parsed.errors] == [(2, 1)]
    names = [s.args[0].text for s in parsed.statements if isinstance(s, Command)]
    assert names == ["a", "b"]


def test_if_else_structure() -> None:
    parsed = parse_cmake(b"if(A)\n x()\nelseif(B)\n y()\nelse()\n z()\nendif()\n")
    block = parsed.statements[0]
    assert isinstance(block, IfBlock)
    assert [
        (None if b.condition is None else [a.text for a in b.condition]) for b in block.branches
    ] == [["A"], ["B"], None]


def test_wrapper_function_with_parsed_arguments(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "include(cmake/w.cmake)\n"
            "my_add(foo SHARED_LIB OUT libfoo SRCS a.cpp b.cpp)\n"
            "my_add(bar SRCS c.cpp)\n",
            "cmake/w.cmake": "function(my_add name)\n"
            '  cmake_parse_arguments(ARG "SHARED_LIB" "OUT" "SRCS" ${ARGN})\n'
            "  if(ARG_SHARED_LIB)\n"
            "    add_library(${name} SHARED ${ARG_SRCS})\n"
            "  else()\n"
            "    add_library(${ARGV0} STATIC ${ARG_SRCS})\n"
            "  endif()\n"
            "  if(ARG_OUT)\n"
            "    set_target_properties(${name} PROPERTIES OUTPUT_NAME ${ARG_OUT})\n"
            "  endif()\n"
            "endfunction()\n",
        },
    )
    foo, bar = only(p, "foo"), only(p, "bar")
    # The wrapper's own if() on its arguments is decided by the call: no condition left.
    assert (foo.library_type, foo.conditions, foo.location.render()) == (
        "SHARED",
        (),
        "CMakeLists.txt:2:1",
    )
    assert foo.via == ("my_add at CMakeLists.txt:2:1",)
    assert (bar.library_type, bar.conditions) == ("STATIC", ())
    assert [(o.target, o.value) for o in p.output_names] == [("foo", "libfoo")]


def test_parse_argv_form_and_macro(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "function(f)\n"
            '  cmake_parse_arguments(PARSE_ARGV 0 A "" "NAME;TYPE" "")\n'
            "  add_library(${A_NAME} ${A_TYPE} x.cpp)\n"
            "endfunction()\n"
            "macro(m n)\n  add_library(${n} MODULE y.cpp)\nendmacro()\n"
            "f(NAME one TYPE OBJECT)\n"
            "m(two)\n",
        },
    )
    assert only(p, "one").library_type == "OBJECT"
    assert only(p, "two").library_type == "MODULE"


def test_conditions_are_recorded_outermost_first(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "if(WITH_A)\n  add_subdirectory(a)\nendif()\n",
            "a/CMakeLists.txt": "if(TARGET core AND NOT APPLE)\n  add_library(x SHARED)\n"
            "else()\n  add_library(y SHARED)\nendif()\n",
        },
    )
    assert only(p, "x").conditions == ("WITH_A", "TARGET core AND NOT APPLE")
    assert only(p, "y").conditions == ("WITH_A", "NOT (TARGET core AND NOT APPLE)")


def test_type_chosen_in_branches_gives_one_definition_per_branch(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "if(SHARED_BUILD)\n  set(t SHARED)\nelse()\n  set(t STATIC)\nendif()\n"
            "add_library(k ${t} k.cpp)\n",
        },
    )
    # Written unconditionally; the branch that chose the type is the definition's choice.
    assert sorted((d.library_type or "", d.conditions, d.choice) for d in p.definitions("k")) == [
        ("SHARED", (), ("SHARED_BUILD",)),
        ("STATIC", (), ("NOT (SHARED_BUILD)",)),
    ]


def test_wrapper_keyword_passed_through_a_variable(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "function(gen)\n"
            '  cmake_parse_arguments(G "SHARED" "LIB_NAME" "" ${ARGN})\n'
            "  if(G_SHARED)\n    add_library(${G_LIB_NAME} SHARED)\n"
            "  else()\n    add_library(${G_LIB_NAME})\n  endif()\nendfunction()\n"
            'if(BUILD_SO)\n  set(kind SHARED)\nelse()\n  set(kind "")\nendif()\n'
            "gen(${kind} LIB_NAME ops)\n",
        },
    )
    assert sorted((d.library_type or "", d.choice) for d in p.definitions("ops")) == [
        ("SHARED", ("BUILD_SO",)),
        ("STATIC", ("NOT (BUILD_SO)",)),
    ]


def test_build_shared_libs_decides_an_untyped_library(tmp_path: Path) -> None:
    p = project(tmp_path, {"CMakeLists.txt": "set(BUILD_SHARED_LIBS ON)\nadd_library(k k.cpp)\n"})
    k = only(p, "k")
    assert (k.library_type, k.type_reason) == (
        "SHARED",
        "no type given and BUILD_SHARED_LIBS is ON, so SHARED",
    )


def test_installs_edges_aliases_and_exclusion(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "add_library(a SHARED)\nadd_library(ns::a ALIAS a)\n"
            "add_library(b STATIC)\n"
            "target_link_libraries(a PRIVATE $<LINK_LIBRARY:WHOLE_ARCHIVE,b> -Wl,--as-needed)\n"
            "add_dependencies(a gen)\nadd_custom_target(gen)\n"
            "set_property(TARGET b PROPERTY OUTPUT_NAME bee)\n"
            "set_target_properties(b PROPERTIES EXCLUDE_FROM_ALL ON)\n"
            "install(TARGETS a b EXPORT T LIBRARY DESTINATION lib)\ninstall(EXPORT T DESTINATION x)\n"
            "add_subdirectory(extra EXCLUDE_FROM_ALL)\n",
            "extra/CMakeLists.txt": "foreach(n IN ITEMS p q)\n  add_library(${n} SHARED)\nendforeach()\n",
        },
    )
    assert [(e.source, e.dest, e.kind) for e in p.edges] == [
        ("ns::a", "a", "alias"),
        ("a", "b", "link"),
        ("a", "gen", "dependency"),
    ]
    assert [(i.target, i.export) for i in p.installs] == [("a", "T"), ("b", "T")]
    assert [e.name for e in p.exported_sets] == ["T"]
    assert [o.value for o in p.output_names] == ["bee"]
    in_all = {t.name: t.in_all for t in p.targets}
    assert in_all == {"a": True, "ns::a": False, "b": False, "gen": False, "p": False, "q": False}


def test_install_declarations_keep_what_an_install_writes(tmp_path: Path) -> None:
    """Export sets with FILE, NAMESPACE and DESTINATION; each kind's DESTINATION; FILES
    resolved against their directory, a configured file kept as a build-tree path."""
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "add_subdirectory(sub)\n"
            "install(EXPORT Plain DESTINATION share/plain)\n"
            "if(WITH_NS)\n"
            "  install(EXPORT Named FILE NamedTargets.cmake NAMESPACE n:: "
            "DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/n)\n"
            "endif()\n"
            "install(FILES cmake/n-config.cmake ${CMAKE_CURRENT_BINARY_DIR}/n-version.cmake "
            "DESTINATION lib/cmake/n)\n",
            "sub/CMakeLists.txt": "add_library(a SHARED a.cpp)\n"
            "set_target_properties(a PROPERTIES EXPORT_NAME ay)\n"
            "install(TARGETS a EXPORT Named LIBRARY DESTINATION lib/a RUNTIME DESTINATION bin "
            "INCLUDES DESTINATION include)\n"
            "install(TARGETS a EXPORT Plain DESTINATION any)\n",
        },
    )
    assert [(e.name, e.file, e.destination, e.namespace, e.conditions) for e in p.exported_sets] == [
        ("Plain", "Plain.cmake", "share/plain", "", ()),
        ("Named", "NamedTargets.cmake", "${CMAKE_INSTALL_LIBDIR}/cmake/n", "n::", ("WITH_NS",)),
    ]  # fmt: skip
    named, plain = p.installs
    assert (named.export, named.location.path) == ("Named", "sub/CMakeLists.txt")
    assert named.destination("LIBRARY") == "lib/a"
    assert named.destination("RUNTIME") == "bin"
    assert named.destination("ARCHIVE") is None
    assert (plain.destination("LIBRARY"), plain.destination("ARCHIVE")) == ("any", "any")
    assert [(o.target, o.value) for o in p.export_names] == [("a", "ay")]
    assert [(f.path, f.destination) for f in p.installed_files] == [
        ("cmake/n-config.cmake", "lib/cmake/n"),
        ("<build>/n-version.cmake", "lib/cmake/n"),
    ]


def test_default_guard_keeps_a_known_path(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "set(ROOT ${CMAKE_CURRENT_SOURCE_DIR})\nadd_subdirectory(deep/er)\n",
            "deep/er/CMakeLists.txt": "if(NOT ROOT)\n  set(ROOT ${CMAKE_CURRENT_SOURCE_DIR}/../../..)\n"
            "endif()\ninclude(${ROOT}/cmake/u.cmake)\nu_add(z)\n",
            "cmake/u.cmake": "function(u_add n)\n  add_library(${n} SHARED)\nendfunction()\n",
        },
    )
    assert p.unreadable == ()
    assert only(p, "z").conditions == ()


def test_unfollowable_inputs_are_facts_not_skips(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "add_subdirectory(${SOMEWHERE}/x)\nadd_subdirectory(missing)\n"
            "include(cmake/none.cmake)\ninclude(cmake/none2.cmake OPTIONAL)\ninclude(GNUInstallDirs)\n"
            "add_subdirectory(vendor/lib)\n",
        },
        exclude=("./vendor/",),
    )
    assert [(u.location.render(), u.reason) for u in p.unreadable] == [
        (
            "CMakeLists.txt:1:1",
            "add_subdirectory(${SOMEWHERE}/x) depends on ${SOMEWHERE}, which is not known "
            "without evaluating CMake; not followed",
        ),
        (
            "CMakeLists.txt:2:1",
            "add_subdirectory(missing) names no directory: missing (a submodule not checked "
            "out? list vendored trees in sources.exclude)",
        ),
        ("CMakeLists.txt:3:1", "include() names cmake/none.cmake, which does not exist"),
    ]
    # A waiver can name the variable only CMake knows.
    assert [u.variable for u in p.unreadable] == ["SOMEWHERE", None, None]


def test_exists_guards_are_decided_from_the_checkout(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "if(OPT AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/absent/CMakeLists.txt)\n"
            "  add_subdirectory(absent)\nendif()\n"
            'if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/here")\n  add_subdirectory(here)\nendif()\n'
            'if("${OPT}")\n  add_library(maybe SHARED)\nendif()\n'
            "include(FetchContent)\nFetchContent_MakeAvailable(dep)\n",
            "here/CMakeLists.txt": "add_library(present SHARED)\n",
        },
    )
    # `OPT AND EXISTS <missing>` is False whatever OPT is; `EXISTS <present>` is True.
    assert only(p, "present").conditions == ()
    # A quoted unknown option is never taken as a constant.
    assert only(p, "maybe").conditions == ('"${OPT}"',)
    assert [(u.location.render(), u.reason) for u in p.unreadable] == [
        (
            "CMakeLists.txt:11:1",
            "FetchContent_MakeAvailable(dep) adds sources downloaded at configure time; targets "
            "they define are not seen",
        )
    ]


def test_a_symlink_back_into_the_tree_is_not_walked_forever(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to(tmp_path, target_is_directory=True)
    p = project(
        tmp_path,
        {
            "CMakeLists.txt": "add_library(top SHARED)\nadd_subdirectory(sub)\n",
            "sub/CMakeLists.txt": "add_subdirectory(up)\n",
        },
    )
    assert [t.name for t in p.targets] == ["top"]
