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
