"""Python and JS/TS evidence of session 5 (`evidence_pyjs.py`, `evidence.py`): each test
builds a small workspace whose needed signature is in the request only with that
evidence (the assertions fail with it removed)."""

from pathlib import Path

from flashls.context import ranking
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE


def _sent(tmp_path: Path, files: dict[str, str], current: str, text: str, budget: int) -> str:
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    path = tmp_path / current
    path.write_text(text)
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    ranking.forget()
    ctx = assemble_context(pdoc, len(text), budget_tokens=budget, workspace=ws)
    return "".join(p.text for p in ctx.parts)


PIPE = "export class Stream<T> {\n" + "".join(
    f"  pipe<{', '.join('ABCDEFGH'[:n])}>(" + ", ".join(
        f"op{k}: Operator<{'T' if k == 1 else 'ABCDEFGH'[k - 2]}, {'ABCDEFGH'[k - 1]}>"
        for k in range(1, n + 1)) + f"): Stream<{'ABCDEFGH'[n - 1]}>;\n"
    for n in range(1, 9)) + "  pipe(...ops: Operator<any, any>[]): Stream<any> {\n" \
    "    return this;\n  }\n}\n"
OPERATORS = "".join(
    f"export function {name}<T>(count: number, label: string): Operator<T, T> {{\n"
    "  return (x) => x;\n}\n" for name in ("take", "skip", "delay", "retry"))


def test_overload_repeats_leave_room_for_the_other_imported_names(tmp_path):
    text = ("import { Stream } from './stream';\n"
            "import { take, skip, delay, retry } from './operators';\n\n"
            "export function run(s: Stream<number>) {\n"
            "  const t = s.pipe();\n  return ")
    sent = _sent(tmp_path, {"stream.ts": PIPE, "operators.ts": OPERATORS}, "main.ts", text,
                 budget=600)
    # the first `pipe` says what the call looks like; its eight repeats would take
    # the budget of the four operators the line may call
    assert "  pipe<A>(op1: Operator<T, A>): Stream<A>;" in sent
    for name in ("take", "skip", "delay", "retry"):
        assert f"export function {name}<T>(count: number, label: string): Operator<T, T> {{" \
            in sent, name
