"""Single line or several: decided by syntax, and turned into request parameters.

Multi-line suggestions are worth their latency and cost only where the user is about
to write a body: right after a block opener whose body is still empty. Mid-line, or
inside a comment or string, one line is what the user expects and one line is cheaper.
"""

from __future__ import annotations

from dataclasses import dataclass

from flashls.context.syntax import ParsedDocument

from .cursor import CursorContext, cursor_context
from .scan import is_closers_only

SINGLE_LINE_TOKENS = 48  # a long line of code is ~40 tokens
MAX_STOPS = 16  # the API's limit


@dataclass(frozen=True)
class Shape:
    multiline: bool
    stop: tuple[str, ...]  # stop sequences for the request (<= 16)
    max_tokens: int


def wants_multiline(ctx: CursorContext) -> bool:
    """The `auto` rule: an empty block body starts at the cursor, and nothing but closers follows."""
    if ctx.in_comment or ctx.in_string:
        return False
    if ctx.rest.strip() and not is_closers_only(ctx.rest):
        return False
    return ctx.block.opens_here and ctx.block.empty


def stop_sequences(ctx: CursorContext, multiline: bool) -> tuple[str, ...]:
    """Where the model should stop: end of line, or where the block is over.

    Stops only save tokens; post-processing enforces the same limits on the text.
    """
    if not multiline:
        return ("\n",)
    eol = ctx.eol
    stops = [eol * 3]  # two blank lines: the model has left the block
    block = ctx.block
    if block.base is not None:
        if block.closer and block.closer_follows:
            stops.append(eol + block.base_text + block.closer)
        keywords = ctx.spec.top_level_stops if ctx.spec else ()
        stops.extend(eol + kw for kw in keywords)
        if block.base_text and ctx.spec is not None and ctx.spec.indent_blocks:
            stops.extend(eol + block.base_text + kw for kw in keywords)
    return tuple(dict.fromkeys(stops))[:MAX_STOPS]


def shape_for(ctx: CursorContext, setting: str, max_tokens: int) -> Shape:
    if setting == "always":
        multiline = True
    elif setting == "never":
        multiline = False
    else:
        multiline = wants_multiline(ctx)
    budget = max(1, max_tokens if multiline else min(max_tokens, SINGLE_LINE_TOKENS))
    return Shape(multiline, stop_sequences(ctx, multiline), budget)


def decide_shape(pdoc: ParsedDocument, offset: int, setting: str, max_tokens: int) -> Shape:
    """`setting` is completion.multiline: "auto" | "always" | "never"."""
    return shape_for(cursor_context(pdoc, offset), setting, max_tokens)
