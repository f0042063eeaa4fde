"""Python rules of session 7 (`evidence_relatives.py`, ...): each test builds a small
workspace whose needed signature is in the request only with that rule (the
assertions fail with it turned off)."""

from flashls.context import evidence_relatives
from tests.files import sent_context as _sent

# a class of 40 public methods, `get_parameter_source` among the last: all tie as
# "members of a receiver's class", and file order decides which fit
METHODS = "".join(f"    def method_number_{k}(self, first_argument, second_argument):\n"
                  "        pass\n\n" for k in range(36))
CORE = ("import enum\n\n\nclass ParameterSource(enum.Enum):\n    DEFAULT = 1\n\n\n"
        "class Context:\n" + METHODS +
        "    def get_parameter_source(self, name: str, strict_lookup: bool):\n"
        "        pass\n\n"
        + "".join(f"    def other_method_{k}(self, first_argument, second_argument):\n"
                  "        pass\n\n" for k in range(4)))
TEXT = ("from .core import Context, ParameterSource\n\n\n"
        "def is_default(ctx: Context, param) -> bool:\n"
        "    default = ParameterSource.DEFAULT\n"
        "    return ")


def _request(tmp_path):
    return _sent(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": CORE}, "pkg/main.py",
                 TEXT, budget=600)


def test_a_relative_near_the_cursor_picks_the_typed_receivers_method(tmp_path):
    assert "def get_parameter_source(self, name: str, strict_lookup: bool):" in \
        _request(tmp_path)


def test_without_the_relative_rule_file_order_decides(tmp_path, monkeypatch):
    monkeypatch.setattr(evidence_relatives, "SCALE", 0.0)
    assert "def get_parameter_source(self, name: str, strict_lookup: bool):" not in \
        _request(tmp_path)


def _far_use_request(tmp_path, filler_rows=500):
    types = ("class ParamType:\n"
             "    def convert(self, value, param, ctx):\n        pass\n\n"
             "    def split_envvar_value(self, rv: str, separator_char: str):\n        pass\n")
    others = "".join(f"def helper_function_{k}(first_argument, second_argument):\n"
                     "    pass\n\n" for k in range(40))
    text = ("from .types import ParamType\nfrom .others import *\n\n\n"
            "class Parameter:\n"
            "    def __init__(self):\n        self.type: ParamType = ParamType()\n\n"
            "    def first_envvar_value(self, rv):\n"
            "        return self.type.split_envvar_value(rv)\n\n"
            + "".join(f"    def method_{k}(self):\n"
                      f"        return helper_function_{k % 40}(1, 2)\n\n"
                      for k in range(filler_rows // 3))
            + "    def value_from_envvar(self, rv):\n"
            "        depth = self.type.convert(rv, None, None)\n"
            "        return ")
    return _sent(tmp_path, {"pkg/__init__.py": "", "pkg/types.py": types,
                            "pkg/others.py": others}, "pkg/main.py", text, budget=500)


def test_a_name_used_far_away_is_lifted_by_a_relative_near_the_cursor(tmp_path):
    assert "def split_envvar_value(self, rv: str, separator_char: str):" in \
        _far_use_request(tmp_path)


def test_a_name_used_far_away_without_the_rule_stays_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(evidence_relatives, "USED_TOO", False)
    assert "def split_envvar_value(self, rv: str, separator_char: str):" not in \
        _far_use_request(tmp_path)


def _declared_request(tmp_path):
    # `self.parser` is declared in `__init__`, 300 rows above the method that uses it;
    # `Other`'s receiver is declared 100 rows above: by declaration, Other's methods
    # come first and fill the budget
    from flashls.context import evidence_members  # noqa: F401  (the rule's module)
    parser = ("class Parser:\n    def parse(self, text):\n        pass\n\n"
              "    def tokenize_stream(self, args_list, strict_mode):\n        pass\n")
    other = "class Other:\n" + "".join(
        f"    def other_method_{k}(self, first_argument, second_argument):\n"
        "        pass\n\n" for k in range(12))
    text = ("from .parser import Parser\nfrom .other import Other\n\n\n"
            "class Command:\n"
            "    def __init__(self):\n        self.parser: Parser = Parser()\n\n"
            + "".join(f"    def method_{k}(self):\n        return {k}\n\n" for k in range(67))
            + "    def helper(self, o: Other):\n        return o\n\n"
            + "".join(f"    def later_{k}(self):\n        return {k}\n\n" for k in range(33))
            + "    def run(self, text):\n"
            "        tree = self.parser.parse(text)\n"
            "        return ")
    return _sent(tmp_path, {"pkg/__init__.py": "", "pkg/parser.py": parser,
                            "pkg/other.py": other}, "pkg/main.py", text, budget=420)


def test_a_declared_receivers_unused_members_are_as_near_as_its_use(tmp_path):
    assert "def tokenize_stream(self, args_list, strict_mode):" in _declared_request(tmp_path)


def test_without_it_the_declaration_decides(tmp_path, monkeypatch):
    from flashls.context import evidence_members
    monkeypatch.setattr(evidence_members, "DECLARED_NEAR", False)
    assert "def tokenize_stream(self, args_list, strict_mode):" not in \
        _declared_request(tmp_path)
