"""Per-language brief forms: more definitions per token in the completion context.

A Go struct's first rows are often field doc comments (cobra's `Command` opens with
`// Use is the one-line usage message.` and two more comment lines); the brief form
of its first few rows then says nothing but that. Here the comment lines below a
definition's name are left out of the brief form (the full form, used by code
actions, keeps them). Java's annotation lines (`@Override`) are left out too
(`evidence_java.brief_head`). `outline._brief` calls `language_brief` through one
hook line.

Rust (session 7): the attribute lines above a definition (`#[derive(Clone, Debug, Eq,
PartialEq)]`, `#[cfg(feature = "std")]`, `#[inline]`) and the field docs below a
struct's name are left out of the brief form, so regex-syntax's forty `ast::` types
cost three lines each instead of four. On the 40 dev tasks per crate of
`benchmarks.real_context` this lost one task (a slice's `.iter()` with a namesake in
the crate, as in session 5, when it was tried and not kept); on a wider dev sample
(120 tasks per crate, every dev task drawn with another seed) it won 8 and lost 1."""

from __future__ import annotations

from typing import Sequence

from .evidence_java import brief_head

COMPACT_RESOLVERS = frozenset({"go"})


def compact(resolver: str, name: str, head: Sequence[str], elision: str) -> list[str]:
    """`head` without the comment lines below the line naming `name` (elisions stay).
    Unchanged for other languages (Rust asks as "go": `///` starts like `//`) and when
    no line names `name`."""
    head = list(head)
    if resolver not in COMPACT_RESOLVERS or not name:
        return head
    at = next((i for i, line in enumerate(head) if name in line), None)
    if at is None:
        return head
    return [line for i, line in enumerate(head)
            if i <= at or not line.strip().startswith("//") or line.strip() == elision]


def without_attributes(head: Sequence[str]) -> list[str]:
    """Rust lines without their attributes (`#[..]`, `#![..]`, over several lines too);
    unchanged when nothing else would be left."""
    kept: list[str] = []
    depth = 0
    for line in head:
        if depth == 0 and not line.lstrip().startswith(("#[", "#![")):
            kept.append(line)
            continue
        depth += line.count("[") - line.count("]")
        depth = max(depth, 0)
    return kept or list(head)


def without_where_clause(head: Sequence[str]) -> list[str]:
    """Rust lines without a `where` clause of their own lines (`where` alone on a line,
    or opening one: itertools' `    where Self: Sized,`; the bounds below it up to the
    `{` opening the body, which stays: joined to the line above, the definition line
    would no longer read as in the source). A one-line clause that opens the body
    (`where T: Clone {`) stays."""
    head = list(head)
    at = next((i for i, line in enumerate(head) if i and _opens_where(line.strip())), None)
    if at is None:
        return head
    end = next((i for i in range(at + 1, len(head)) if head[i].lstrip().startswith("{")),
               len(head))
    return head[:at] + head[end:]


def _opens_where(stripped: str) -> bool:
    return stripped == "where" or stripped.startswith("where ") and "{" not in stripped


def language_brief(resolver: str, name: str, head: Sequence[str], elision: str) -> list[str]:
    """The language's own trimming of a brief head (Java annotations, Go field
    comments, Rust attributes and field docs); unchanged for the other languages."""
    if resolver == "rust":
        return compact("go", name, without_where_clause(without_attributes(head)), elision)
    return compact(resolver, name, brief_head(resolver, list(head)), elision)
