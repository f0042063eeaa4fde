"""Session 15 Rust rules: a test written inside a macro echoes its name."""
from flashls.context import evidence_rust
from flashls.context.rust_macro_fn import enclosing_fn_name
from tests.files import write
from tests.test_context_go_rust import CARGO, score, scores

QUICK = """quickcheck! {
    fn size_take(a: Vec<u8>) -> bool {
        x
    }
}

quickcheck! {
    fn equal_partition(a: Vec<i32>) -> bool {
        let mut a = a;
        if a {
            b
        } else {
            CUR
        }
        CUR2
    }
    fn multi(a: X)
        -> bool
    {
        CUR3
    }
    CUR4
}
""".split("\n")


def _at(tag: str) -> int:
    return next(i for i, line in enumerate(QUICK) if line.strip() == tag)


def test_enclosing_fn_is_read_from_the_lines_of_a_macro_body():
    assert enclosing_fn_name(QUICK, _at("CUR")) == "equal_partition"  # `} else {` crossed
    assert enclosing_fn_name(QUICK, _at("CUR2")) == "equal_partition"
    assert enclosing_fn_name(QUICK, _at("CUR3")) == "multi"  # a header above its `{`
    assert enclosing_fn_name(QUICK, _at("x")) == "size_take"


def test_between_functions_of_a_macro_body_there_is_none():
    assert enclosing_fn_name(QUICK, _at("CUR4")) is None
    assert enclosing_fn_name(QUICK, 0) is None


LIB = ("pub fn partition(v: &mut [i32]) -> usize {\n    0\n}\n\n"
       "pub fn interleave(a: u8) -> u8 {\n    a\n}\n\n"
       "pub fn merge(a: u8) -> u8 {\n    a\n}\n")
TEST = ("use my_crate::merge;\n\n"
        "quickcheck! {\n    fn equal_partition(a: Vec<i32>) -> bool {\n"
        "        let mut ap = a.clone();\n        let n = 0;\n        merge(1) == 1\n    }\n}\n")


def _partition_score(tmp_path) -> float:
    write(tmp_path, {"Cargo.toml": CARGO, "src/lib.rs": LIB, "tests/quick.rs": TEST})
    table = scores(tmp_path, "tests/quick.rs", "let n = 0;")
    return score(table, "src/lib.rs", "pub fn partition")


def test_a_quickcheck_test_name_lifts_what_it_spells(tmp_path, monkeypatch):
    with_rule = _partition_score(tmp_path / "a")
    monkeypatch.setattr(evidence_rust, "MACRO_FN_ECHO", False)
    without = _partition_score(tmp_path / "b")
    assert with_rule >= evidence_rust.ECHO_SCORE > without


# -- rust_near_files: a big lib.rs reads the modules the code near the cursor needs -----
from flashls.context import rust_near_files  # noqa: E402
from flashls.context.neighbors import MAX_NEIGHBOR_FILES, neighbor_files  # noqa: E402
from flashls.context.assemble import _current_analysis  # noqa: E402
from flashls.context.document import Document  # noqa: E402
from flashls.context.syntax import ParsedDocument  # noqa: E402
from flashls.context.workspace import Workspace  # noqa: E402
from flashls.settings import DEFAULT_EXCLUDE  # noqa: E402


def _big_crate(tmp_path) -> tuple[str, int]:
    """A lib.rs declaring more modules than are read, each used once; the last one
    used inside the function the cursor is in. (lib.rs path, cursor line)"""
    n = MAX_NEIGHBOR_FILES + 6
    files = {"Cargo.toml": CARGO}
    lib = [f"mod m{i};" for i in range(n)] + [""]
    for i in range(n):
        files[f"src/m{i}.rs"] = f"pub struct Thing{i};\n\npub fn make{i}() -> Thing{i} {{\n    Thing{i}\n}}\n"
        lib += [f"pub fn use{i}() -> m{i}::Thing{i} {{", f"    m{i}::make{i}()", "}", ""]
    text = "\n".join(lib)
    cursor = lib.index(f"    m{n - 1}::make{n - 1}()")
    files["src/lib.rs"] = text
    write(tmp_path, files)
    return str(tmp_path / "src/lib.rs"), cursor


def _read(tmp_path, cursor_line) -> list[str]:
    path, _ = _big_crate(tmp_path)
    text = open(path).read()
    pdoc = ParsedDocument.open(Document("file://" + path, text, "", 1), path)
    analysis = _current_analysis(pdoc)
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    return [f.source for f in neighbor_files(analysis.spec, path, analysis, ws, {},
                                             cursor_line=cursor_line)]


def test_the_module_used_near_the_cursor_is_read_first(tmp_path):
    _, cursor = _big_crate(tmp_path / "probe")
    last = f"src/m{MAX_NEIGHBOR_FILES + 5}.rs"
    got = _read(tmp_path / "a", cursor)
    assert last in got[:4]  # with the modules used within NEAR_ROWS of it
    assert last not in _read(tmp_path / "b", None)  # without a cursor: file order


def test_without_the_rule_the_module_is_left_out(tmp_path, monkeypatch):
    _, cursor = _big_crate(tmp_path / "probe")
    monkeypatch.setattr(rust_near_files, "NEAR_FILES", False)
    assert f"src/m{MAX_NEIGHBOR_FILES + 5}.rs" not in _read(tmp_path / "a", cursor)


# -- evidence_rust._echo_floor: an echoed method keeps ECHO_SCORE after its calls are weighed
SMALL = ("pub struct Small {\n    n: usize,\n}\n\nimpl Small {\n"
         "    pub fn new() -> Small {\n        Small { n: 0 }\n    }\n\n"
         "    pub fn push(&mut self, x: u8) {\n        self.n += 1;\n    }\n\n"
         "    pub fn insert_many(&mut self, index: usize, n: u8) {\n        self.n += 1;\n    }\n\n"
         "    pub fn insert(&mut self, index: usize, x: u8) {\n        self.n += 1;\n    }\n}\n")
SMALL_TESTS = ("use my_crate::Small;\n\n" + "".join(
    f"#[test]\nfn many{i}() {{\n    let mut v: Small = Small::new();\n    v.insert_many(0, {i});\n}}\n\n"
    for i in range(8)) + "".join(
    f"#[test]\nfn other{i}() {{\n    let mut w = Small::new();\n    w.push({i});\n}}\n\n"
    for i in range(30)) +
    "#[test]\nfn test_insert_many_overflow() {\n    let mut v: Small = Small::new();\n"
    "    v.push(123);\n    let n = 0;\n    v.insert(0, 1);\n}\n")


def _insert_many_score(tmp_path) -> float:
    write(tmp_path, {"Cargo.toml": CARGO, "src/lib.rs": SMALL, "tests/t.rs": SMALL_TESTS})
    return score(scores(tmp_path, "tests/t.rs", "let n = 0;"), "src/lib.rs", "pub fn insert_many")


def test_an_echoed_method_used_far_away_keeps_the_echo(tmp_path, monkeypatch):
    # its far calls (`v.insert_many` in other tests) score it below the echo it had
    assert _insert_many_score(tmp_path / "a") >= evidence_rust.ECHO_SCORE
    monkeypatch.setattr(evidence_rust, "ECHO_FLOOR", False)
    assert _insert_many_score(tmp_path / "b") < evidence_rust.ECHO_SCORE
