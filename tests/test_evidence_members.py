"""Python and JS/TS rules of session 6 (`import_order.py`, `evidence_members.py`):
each test builds a small workspace whose needed signature is in the request only with
that rule (the assertions fail with it removed)."""

from pathlib import Path

from flashls.context import ranking
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.files import sent_context as _sent, write


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
    got = neighbor_files(spec, path, analyze(spec, text, ("order", path)),
                         Workspace([str(tmp_path)], DEFAULT_EXCLUDE), {})
    assert [Path(f.path).name for f in got] == [f"m{k}.py" for k in range(5)]


FILLER = "".join(f"def filler_function_{k}(first_argument, second_argument, third_one):\n"
                 "    pass\n\n" for k in range(60))


def test_a_receiver_named_like_a_neighbor_class_types_its_member(tmp_path):
    # `self.environment` is never declared in the file, but it is an `Environment`:
    # its `getitem` is the one the file calls, not the first `getitem` of the imports
    cache = "class Cache:\n    def getitem(self, key, default_value, loader):\n        pass\n"
    env = "class Environment:\n    def getitem(self, obj, argument, strict_mode_flag):\n" \
        "        pass\n"
    text = ("from .cache import Cache\nfrom .env import Environment\n"
            "from .filler import *\n\n\n"
            "class Parser:\n    def __init__(self, environment, cache):\n"
            "        self.environment = environment\n        self.cache = Cache()\n\n"
            "    def first(self, node):\n        return self.environment.getitem(node, 1)\n\n"
            "    def second(self, node):\n        ")
    sent = _sent(tmp_path, {"pkg/__init__.py": "", "pkg/cache.py": cache, "pkg/env.py": env,
                            "pkg/filler.py": FILLER}, "pkg/main.py", text, budget=700)
    assert "def getitem(self, obj, argument, strict_mode_flag):" in sent


def test_an_attribute_annotated_in_a_neighbor_types_its_unused_members(tmp_path):
    # `environment.template_class` is a `Template` (`Environment` says so); the line
    # after it likely calls one of Template's methods, none used in the file yet
    env = ("class Template:\n"
           "    def from_module_dict(cls, environment, module_dict, globals):\n"
           "        pass\n\n"
           "    def render(self, *args, **kwargs):\n        pass\n\n\n"
           "class Environment:\n    template_class: \"Template\"\n")
    text = ("from .env import Environment\nfrom .filler import *\n\n\n"
            "def load(environment, name):\n"
            "    factory = environment.template_class\n    return ")
    sent = _sent(tmp_path, {"pkg/__init__.py": "", "pkg/env.py": env, "pkg/filler.py": FILLER},
                 "pkg/main.py", text, budget=600)
    assert "def from_module_dict(cls, environment, module_dict, globals):" in sent


def test_same_file_repeats_of_one_name_are_worth_half_each(tmp_path):
    from flashls.context.analysis import analyze
    from flashls.context.languages import language_for
    classes = "".join(f"class Node{k}:\n    def as_const(self, eval_ctx, left, right):\n"
                      "        pass\n\n\n" for k in range(6))
    text = classes + "def run(node):\n    return node.as_const(None, 1, 2)\n"
    path = str(tmp_path / "nodes.py")
    spec = language_for("", path)
    a = analyze(spec, text, ("repeats", path))
    cursor = text.count("\n") - 1
    cands, _ = ranking.rank(a, path, cursor, (cursor - 1, cursor), [], spec.resolver)
    scores = sorted((c.score for c in cands if a.items[c.item].name == "as_const"),
                    reverse=True)
    assert len(scores) == 6
    assert scores[1] == scores[0] / 2 and scores[2] == scores[0] / 4


def test_properties_and_fields_type_attributes_but_method_returns_do_not():
    from flashls.context.analysis import analyze
    from flashls.context.evidence_members import _size_factor, tables
    from flashls.context.languages import language_for
    text = ("class App:\n    session_interface: SessionInterface = make()\n\n"
            "    @property\n    def jinja_env(self) -> Environment:\n        pass\n\n"
            "    def restore(self) -> Control:\n        pass\n")
    spec = language_for("", "app.py")
    items = analyze(spec, text, ("properties", text)).items
    t = tables(items)
    assert t.attributes == {"session_interface": {"SessionInterface"},
                            "jinja_env": {"Environment"}}
    assert _size_factor(items, "App") == 1.0
    big = "class Console:\n" + "".join(f"    def m{k}(self):\n        pass\n" for k in range(48))
    assert _size_factor(analyze(spec, big, ("big", big)).items, "Console") == 0.5


def test_a_barrel_re_exported_by_a_barrel_is_followed_to_the_imported_name(tmp_path):
    files = {f"lib/part{k}.ts": f"export class Part{k} {{}}\n" for k in range(6)}
    files["lib/index.ts"] = "".join(f"export * from './part{k}';\n" for k in range(6)) + \
        "export * from './features';\n"
    files.update({f"lib/features/feature{k}.ts": f"export class Feature{k} {{}}\n"
                  for k in range(6)})
    files["lib/features/widget.ts"] = \
        "export class Widget {\n  constructor(name: string, size: number) {}\n}\n"
    files["lib/features/index.ts"] = "".join(
        f"export * from './feature{k}';\n" for k in range(6)) + "export * from './widget';\n"
    text = "import { Widget } from './lib';\n\nexport const w = new "
    sent = _sent(tmp_path, files, "main.ts", text, budget=2048)
    assert "export class Widget {" in sent
    assert "Feature3" not in sent  # the second hop reads the file the name is in only
