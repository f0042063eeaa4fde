"""Python and JS/TS rules of session 6 (`import_order.py`, `evidence_members.py`):
each test builds a small workspace whose needed signature is in the request only with
that rule (the assertions fail with it removed)."""

from pathlib import Path

from flashls.context import ranking
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.files import write


def _sent(tmp_path: Path, files: dict[str, str], current: str, text: str, budget: int) -> str:
    write(tmp_path, files)
    path = tmp_path / current
    path.write_text(text)
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    ranking.forget()
    ctx = assemble_context(pdoc, len(text), budget_tokens=budget, workspace=ws)
    return "".join(p.text for p in ctx.parts)


def test_a_file_importing_more_modules_than_fit_reads_the_most_used_one(tmp_path):
    # 30 helpers imported first, each used once; `wrapper` imported last and used on
    # every line: in import order it was the 31st file, past the 24 that are read
    helpers = {f"helper{k}.js": f"export default function helper{k}(value) {{\n"
               "  return value;\n}\n" for k in range(30)}
    wrapper = ("export default function wrapper(value, options) {\n"
               "  return value;\n}\n")
    text = "".join(f"import helper{k} from './helper{k}.js';\n" for k in range(30)) + \
        "import lodash from './wrapper.js';\n\n" + \
        "".join(f"lodash.helper{k} = helper{k};\n" for k in range(30)) + "lodash."
    sent = _sent(tmp_path, {**helpers, "wrapper.js": wrapper}, "main.js", text, budget=2048)
    assert "export default function wrapper(value, options) {" in sent


def test_a_python_module_importing_few_files_keeps_import_order(tmp_path):
    from flashls.context.analysis import analyze
    from flashls.context.languages import language_for
    from flashls.context.neighbors import neighbor_files
    files = {f"pkg/m{k}.py": f"def f{k}():\n    pass\n" for k in range(5)}
    files["pkg/__init__.py"] = ""
    text = "".join(f"from .m{k} import f{k}\n" for k in range(5)) + "f4(); f4(); f3()\n"
    files["pkg/main.py"] = text
    write(tmp_path, files)
    path = str(tmp_path / "pkg/main.py")
    spec = language_for("", path)
    got = neighbor_files(spec, path, analyze(spec, text, ("t",)),
                         Workspace([str(tmp_path)], DEFAULT_EXCLUDE), {})
    assert [Path(f.path).name for f in got] == [f"m{k}.py" for k in range(5)]
