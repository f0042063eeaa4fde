"""The brief form of outline items: what the completion context sends (signature
lines only), beside the full form the code actions show (docstring, elisions)."""

from flashls.context.analysis import analyze
from flashls.context.languages import LANGUAGES
from flashls.context.neighbors import entry_cost
from flashls.context.outline import render

PY = '''class Formatter:
    """Formats help pages."""

    def write_dl(self, rows: list, col_max: int = 30) -> None:
        """Writes a definition list."""
        for row in rows:
            print(row)

    def indent(self) -> None:
        self.level += 1
'''

TS = '''/** Adds two numbers. */
export function add(a: number, b: number): number {
  return a + b;
}
export class Box {
  /** The width. */
  width(): number {
    return 1;
  }
}
'''


def _analysis(name: str, text: str):
    spec = next(s for s in LANGUAGES if s.name == name)
    return analyze(spec, text, ("brief-test", name, text))


def test_python_brief_form_has_the_signatures_only():
    a = _analysis("python", PY)
    everything = set(range(len(a.items)))
    full = render(a.items, everything).splitlines()
    brief = render(a.items, everything, brief=True).splitlines()
    assert '        """Writes a definition list."""' in full and "        # ..." in full
    assert brief == ["class Formatter:",
                     "    def write_dl(self, rows: list, col_max: int = 30) -> None:",
                     "    def indent(self) -> None:"]
    method = next(it for it in a.items if it.name == "write_dl")
    assert entry_cost(method) < method.tokens + len(method.lines)  # cheaper than full


def test_typescript_brief_form_drops_doc_comments_elisions_and_function_closings():
    a = _analysis("typescript", TS)
    everything = set(range(len(a.items)))
    full = render(a.items, everything).splitlines()
    brief = render(a.items, everything, brief=True).splitlines()
    assert "/** Adds two numbers. */" in full and "  // ..." in full
    assert brief == ["export function add(a: number, b: number): number {",
                     "export class Box {",
                     "  width(): number {",
                     "}"]  # a container keeps its closing line: members sit inside it


def test_part_labels_are_counted_with_the_titles_the_prompt_sends():
    from flashls.completion.prompt import TIER_TITLES
    from flashls.context.neighbors import LABEL_TITLES, part_overhead
    assert {k: v for k, v in LABEL_TITLES.items() if k != "window"} == TIER_TITLES
    source = "pkg/module.py"
    assert part_overhead(source, "neighbors") < part_overhead(source, "recent")
    assert part_overhead(source) == part_overhead(source, "recent")  # the longest


def test_a_long_c_typedef_keeps_the_line_that_names_it():
    fields = "".join(f"    double m{i};\n" for i in range(8))
    a = _analysis("c", "typedef struct {\n" + fields + "} Matrix;\n")
    brief = render(a.items, set(range(len(a.items))), brief=True).splitlines()
    assert brief[0] == "typedef struct {" and brief[-1] == "} Matrix;"
    assert len(brief) == 5  # three lines, an elision, the naming line
