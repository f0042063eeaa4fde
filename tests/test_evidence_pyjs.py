"""Python and JS/TS evidence of session 5 (`evidence_pyjs.py`, `evidence.py`): each test
builds a small workspace whose needed signature is in the request only with that
evidence (the assertions fail with it removed)."""


from flashls.context import ranking
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.evidence import line_receivers
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.files import sent_context as _sent


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


def test_except_and_with_as_type_the_names_they_bind():
    assert ("e", "ClickException") in line_receivers("        except ClickException as e:")
    assert set(line_receivers("    except (ValueError, exceptions.HTTPError) as exc:")) == \
        {("exc", "ValueError"), ("exc", "HTTPError")}
    assert ("live", "Live") in line_receivers("    with Live(console=console) as live:")
    assert line_receivers("    with open(path) as handle:") == ()  # a function, no class


def _class(name: str, methods: list[str], base: str = "") -> str:
    return f"class {name}{base}:\n" + "".join(
        f"    def {m}(self, value: int, label: str = '') -> int:\n        return value\n\n"
        for m in methods)


PRIVATE_30 = [f"_detail_{i}" for i in range(30)]


def test_an_exception_caught_as_a_name_brings_its_class_methods(tmp_path):
    errors = _class("AppError", PRIVATE_30 + ["show"], "(Exception)")
    text = ("from .errors import AppError\n\n\ndef main(run):\n    try:\n        run()\n"
            "    except AppError as e:\n        ")
    sent = _sent(tmp_path, {"errors.py": errors}, "main.py", text, budget=500)
    # `e` is an AppError: `e.show()` is a likely next line, not `e._detail_29()`
    assert "    def show(self, value: int, label: str = '') -> int:" in sent


def test_a_receiver_declared_just_above_the_cursor_comes_first(tmp_path):
    grid = _class("Grid", [f"cell_{i}" for i in range(12)])
    table = _class("Table", [f"row_{i}" for i in range(12)])
    text = ("from .grid import Grid\nfrom .table import Table\n\n\ndef render(data):\n"
            "    g = Grid(data)\n" + "".join(f"    step_{i} = {i}\n" for i in range(40)) +
            "    t = Table(data)\n    ")
    sent = _sent(tmp_path, {"grid.py": grid, "table.py": table}, "render.py", text,
                 budget=700)
    # both receivers are in the function, but `t` was just made: `t.` is what follows
    # (Grid's methods, first in import order, used to come first)
    assert "    def row_0(self, value: int, label: str = '') -> int:" in sent
    assert "    def cell_0(" not in sent


def test_a_plain_name_is_no_use_of_a_member_of_that_name(tmp_path):
    query = _class("Query", PRIVATE_30 + ["merge"])
    text = ("from .query import Query\n\nmerge = True\n\n\ndef combine(params):\n"
            "    merged = Query(params)\n    return ")
    sent = _sent(tmp_path, {"query.py": query}, "combine.py", text, budget=500)
    # the module's `merge = True` says nothing about `Query.merge`; the receiver does
    assert "    def merge(self, value: int, label: str = '') -> int:" in sent


def test_a_typed_receiver_near_the_cursor_brings_the_methods_called_on_it_far_away(tmp_path):
    fmt = _class("Formatter", [f"write_{i}" for i in range(8)] + ["section"])
    helpers = "".join(f"def helper_{i}(value: int, label: str = '') -> int:\n    return value\n\n"
                      for i in range(30))
    text = ("from .fmt import Formatter\nfrom .helpers import *\n\n\n"
            "def early(f: Formatter):\n    f.section()\n\n\n" +
            "".join(f"def filler_{i}():\n    return helper_{i}(1)\n\n\n" for i in range(30)) +
            "def late(formatter: Formatter):\n    ")
    sent = _sent(tmp_path, {"fmt.py": fmt, "helpers.py": helpers}, "late.py", text,
                 budget=600)
    # `section` is called on a Formatter 200 lines up; `formatter` here is one too
    assert "    def section(self, value: int, label: str = '') -> int:" in sent


def test_a_modules_private_names_wait_behind_its_public_ones(tmp_path):
    nodes = "".join(f"_table_{i}: dict[str, str] = {{\n    'add': 'a', 'sub': 's',\n"
                    f"    'mul': 'm', 'div': 'd',\n}}\n\n" for i in range(12)) + "".join(
        f"class {name}(Node):\n    fields = ('target', 'value')\n\n"
        for name in ("Node", "Name", "Const", "Assign", "Output", "Call", "Filter"))
    text = ("from . import nodes\n\n\ndef parse(expr):\n    target = nodes.Name('x')\n"
            "    body = ")
    sent = _sent(tmp_path, {"nodes.py": nodes}, "parse.py", text, budget=420)
    # `nodes.` may be any of its classes next; `nodes._table_3` it hardly ever is
    assert "class Assign(Node):" in sent
    assert "class Filter(Node):" in sent


def test_the_stable_tier_gets_what_the_window_leaves_of_its_share(tmp_path):
    from flashls.context.budget import window_cap
    helpers = "".join(f"def helper_{i}(value: int, label: str = '') -> int:\n    return value\n\n"
                      for i in range(80))
    # a long file (the window cannot reach its top) whose window stops a grid cell
    # short of its share: the cursor's cell starts just above it
    body = "".join(f"def f_{i}():\n    return " + " + ".join(
        f"helper_{(i + k) % 80}({k}, 'label')" for k in range(8)) + "\n\n\n" for i in range(300))
    text = "from .helpers import *\n\n\n" + body + "def last():\n    return "
    budget = 2048
    for name, content in {"helpers.py": helpers}.items():
        (tmp_path / name).write_text(content)
    path = tmp_path / "main.py"
    path.write_text(text)
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    ranking.forget()
    ctx = assemble_context(pdoc, len(text), budget_tokens=budget, workspace=ws)
    window = ctx.tokens - sum(p.tokens for p in ctx.parts)
    assert ctx.window_start_line > 0 and window < window_cap(budget) - budget // 8
    # the signatures use more than what the window's whole share would leave them
    assert sum(p.tokens for p in ctx.parts) > budget - window_cap(budget)
    assert ctx.tokens <= budget
