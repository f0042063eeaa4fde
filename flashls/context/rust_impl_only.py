"""Rust types whose only visible definition is their `impl` headers.

A type declared inside a macro body has no item of its own: url's `ParseError` is
written in `simple_enum_error! { .. }` in `parser.rs`, so the parser sees only `impl
Error for ParseError {}` and `impl From<..> for ParseError`. An impl header scores a
quarter of its name's evidence (`ranking.IMPL`: normally the type's own struct line
is there as well, and a used method brings its impl along), which left the only lines
that name the type ranked behind dozens of entries while the file imports it by name
and uses it on the line being written.

So when the current file imports a name through a `use` that is not std's, and the
neighbor files have impl headers for it but no struct / enum / trait / type / function
of that name (nor does the current file), those headers count in full. Std's types
(`impl ExtendFromSlice<T> for Vec<T>`) are not imported through a crate path, or are
imported from std, and keep the discount.
"""

from __future__ import annotations

from typing import Sequence

from .memo import ForLastNeighbors, PerAnalysis

def _compute_names(analysis) -> tuple[frozenset[str], frozenset[str]]:
    """(names with an impl header, names with any other item) of one file."""
    impls: set[str] = set()
    defined: set[str] = set()
    for it in analysis.items:
        if not it.name:
            continue
        if it.kind == "impl":
            impls.add(it.name)
        elif it.kind != "import":
            defined.add(it.name)
    return frozenset(impls), frozenset(defined)


_file_names: PerAnalysis[tuple[frozenset[str], frozenset[str]]] = PerAnalysis(_compute_names)


def _compute_impl_only(files: Sequence) -> frozenset[str]:
    impls: set[str] = set()
    defined: set[str] = set()
    for f in files:
        i, d = _file_names(f.analysis)
        impls |= i
        defined |= d
    return frozenset(impls - defined)


_neighbors_impl_only = ForLastNeighbors(_compute_impl_only)


def impl_only_types(analysis, files: Sequence, bound: frozenset[str],
                    std_names: frozenset[str]) -> frozenset[str]:
    """Names the current file imports (not from std / core / alloc) that the neighbor
    files only have impl headers for, and the current file does not define."""
    wanted = bound - std_names
    if not wanted or not files:
        return frozenset()
    found = _neighbors_impl_only(files) & wanted
    if not found:
        return found
    return found - _file_names(analysis)[1]
