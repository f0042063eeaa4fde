"""rust_impl_only: a type declared in a macro body is known by its impl headers only."""
from types import SimpleNamespace as NS

from flashls.context.rust_impl_only import impl_only_types


def _an(*items):
    return NS(items=tuple(NS(name=n, kind=k) for n, k in items))


def test_impl_only_type_imported_by_name_is_found():
    parser = NS(analysis=_an(("ParseError", "impl"), ("Parser", "struct"), ("Parser", "impl")))
    here = _an(("Url", "struct"))
    got = impl_only_types(here, [parser], frozenset({"ParseError", "Parser"}), frozenset())
    assert got == frozenset({"ParseError"})


def test_std_types_and_own_definitions_keep_the_discount():
    lib = NS(analysis=_an(("Vec", "impl"), ("Thing", "impl")))
    here = _an(("Thing", "struct"))
    assert impl_only_types(here, [lib], frozenset({"Vec", "Thing"}), frozenset({"Vec"})) == frozenset()
