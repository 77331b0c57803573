"""The fast record builders give exactly what the dataclass constructors give.

symbol_record and import_record set a record's fields straight into its __dict__;
a field added to the dataclass and not to its builder must fail here, not as an
AttributeError in a rule.
"""

from __future__ import annotations

import dataclasses

from shiplint.artifacts.records import (
    Binding,
    Import,
    SymbolKind,
    SymbolRecord,
    import_record,
    symbol_record,
)


def test_symbol_record_is_the_constructed_record() -> None:
    built = symbol_record("_ZN3foo3barEv", Binding.WEAK, "default", SymbolKind.FUNCTION, "V_1")
    constructed = SymbolRecord("_ZN3foo3barEv", Binding.WEAK, "default", SymbolKind.FUNCTION, "V_1")
    assert built == constructed and hash(built) == hash(constructed)
    assert set(vars(built)) == {field.name for field in dataclasses.fields(SymbolRecord)}
    assert built.base == constructed.base == "foo::bar"


def test_import_record_is_the_constructed_record() -> None:
    arguments = ("CreateFileW", True, "GLIBC_2.2.5", "a.dll", "libc.so.6", 7, True)
    built = import_record(*arguments)
    assert built == Import(*arguments) and hash(built) == hash(Import(*arguments))
    assert set(vars(built)) == {field.name for field in dataclasses.fields(Import)}
    assert import_record("f", False) == Import("f", False)
