"""Per-language brief forms: more definitions per token in the completion context.

A Go struct's first rows are often field doc comments (cobra's `Command` opens with
`// Use is the one-line usage message.` and two more comment lines); the brief form
of its first few rows then says nothing but that. Here the comment lines below a
definition's name are left out of the brief form (the full form, used by code
actions, keeps them). Java's annotation lines (`@Override`) are left out too
(`evidence_java.brief_head`). `outline._brief` calls `language_brief` through one
hook line.

Measured and not kept for Rust (dev, `benchmarks.real_context`): dropping the
attribute lines above a struct (`#[derive(Clone, Debug, Eq, PartialEq)]`) and field
docs below it lost one task (a slice's `.iter()`, with a namesake in the crate) and
won none."""

from __future__ import annotations

from typing import Sequence

from .evidence_java import brief_head

COMPACT_RESOLVERS = frozenset({"go"})


def compact(resolver: str, name: str, head: Sequence[str], elision: str) -> list[str]:
    """`head` without the comment lines below the line naming `name` (elisions stay).
    Unchanged for other languages and when no line names `name`."""
    head = list(head)
    if resolver not in COMPACT_RESOLVERS or not name:
        return head
    at = next((i for i, line in enumerate(head) if name in line), None)
    if at is None:
        return head
    return [line for i, line in enumerate(head)
            if i <= at or not line.strip().startswith("//") or line.strip() == elision]


def language_brief(resolver: str, name: str, head: Sequence[str], elision: str) -> list[str]:
    """The language's own trimming of a brief head (Java annotations, Go field
    comments); unchanged for the other languages."""
    return compact(resolver, name, brief_head(resolver, list(head)), elision)
