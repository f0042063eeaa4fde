"""Python rules of session 15.

* a used module's names tied at the module's score, broken by the words near the
  cursor (`evidence_words`);
* receivers typed by a call's annotated return type and by a conditional value calling
  a class (`receiver_returns`, through `evidence_members`), fresh ones as fresh as
  `x = T(..)` (`RETURNED_FRESH`), their used members as near as the receiver
  (`RETURNED_NEAR`), their members called only on other receivers unused by them
  (`OTHERS_UNUSED`);
* a class whose private members the file calls through a receiver has its other
  private members scored as public ones (`receiver_private`).

Each test runs with its rule on and off and fails with it off."""

import pytest

from flashls.context import evidence_members, evidence_words, receiver_private, \
    receiver_returns
from flashls.context.evidence_words import module_table, near_words, share
from tests.test_init_attributes import _scores

# a module of many `*ParamType` classes, tied at the module's score when first used
TYPES = ("class ParamType:\n    name = 'x'\n\n\n" +
         "".join(f"class {n}ParamType(ParamType):\n    name = '{n.lower()}'\n\n\n"
                 for n in ("String", "Int", "Float", "Bool", "Uuid", "Choice", "Path",
                           "File", "Date", "Tuple", "Range", "Unprocessed")) +
         "def convert_type(ty, default=None):\n    return ty\n")


@pytest.mark.parametrize("rule", [True, False])
def test_a_modules_tied_names_are_broken_by_the_words_near_the_cursor(tmp_path, monkeypatch,
                                                                     rule):
    # "bool" near the cursor (a comment, an annotation): `types.BoolParamType` first
    monkeypatch.setattr(evidence_words, "TIE", 1.0 if rule else 0.0)
    text = ("from . import types\n\n\n"
            "def make_option(flag_value, is_flag: bool):\n"
            "    # a flag is a bool option: guess its type from the flag value\n"
            "    kind = types.convert_type(None, flag_value)\n"
            "    is_bool_flag = is_flag and isinstance(kind, ")
    text += "\n"
    files = {"pkg/__init__.py": "", "pkg/types.py": TYPES}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert (s["BoolParamType"] > s["IntParamType"]) == rule
    assert s["BoolParamType"] < s["IntParamType"] + 1.01  # a tie-breaker, no more


def test_the_share_weighs_a_names_words_by_their_rarity_in_the_module():
    from flashls.context.analysis import analyze
    from flashls.context.languages import language_for
    a = analyze(language_for("", "types.py"), TYPES, ("t", "types.py"))
    names, weight = module_table(a.items)
    assert weight["bool"] > weight["param"] * 3  # one name has `bool`, thirteen `param`
    by_name = {a.items[i].name: ws for i, ws in names.items()}
    near = near_words(["# a bool flag", "", "x = 1"], 1)
    prefixes: dict = {}
    assert share(by_name["BoolParamType"], weight, near, prefixes) > 0.5
    assert share(by_name["IntParamType"], weight, near, prefixes) == 0.0
    # a name word of PREFIX letters matches a longer near word ("autoescaping")
    assert share(frozenset({"autoescape"}), {}, frozenset({"autoescaping"}), {}) == 1.0
    assert share(frozenset({"bool"}), {}, frozenset({"boolean"}), {}) == 0.0  # too short


CONFIG = ("class UseClientDefault:\n    pass\n\n\n"
          "class Timeout:\n    def __init__(self, timeout) -> None:\n        self.t = timeout\n\n"
          "    def as_dict(self) -> dict:\n        return {}\n\n"
          "    def merged(self, other) -> 'Timeout':\n        return self\n")


@pytest.mark.parametrize("rule", [True, False])
def test_a_conditional_value_calling_a_class_types_the_receiver(tmp_path, monkeypatch, rule):
    # httpx: `timeout = (self.timeout if isinstance(..) else Timeout(timeout))`
    monkeypatch.setattr(receiver_returns, "CONDITIONAL", rule)
    text = ("from .config import Timeout, UseClientDefault\n\n\n"
            "def build_request(client, timeout):\n"
            "    timeout = (\n        client.timeout\n"
            "        if isinstance(timeout, UseClientDefault)\n"
            "        else Timeout(timeout)\n    )\n"
            "    extensions = dict(timeout=")
    files = {"pkg/__init__.py": "", "pkg/config.py": CONFIG}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert (s["as_dict"] > 60) == rule


STYLE = ("class Style:\n" +
         "".join(f"    def member_{k}(self, a):\n        pass\n\n" for k in range(6)) +
         "    @property\n    def transparent_background(self) -> bool:\n"
         "        return True\n")


@pytest.mark.parametrize("rule", [True, False])
def test_a_calls_annotated_return_type_types_the_receiver(tmp_path, monkeypatch, rule):
    # rich: `base_style = self._get_base_style()`, `def _get_base_style(self) -> Style`
    monkeypatch.setattr(receiver_returns, "RETURNS", rule)
    text = ("from .style import Style\n\n\n"
            "class Syntax:\n"
            "    def _get_base_style(self) -> Style:\n        return Style()\n\n"
            "    def highlight(self, code):\n"
            "        base_style = self._get_base_style()\n"
            "        justify = (\n            'default' if base_style.")
    files = {"pkg/__init__.py": "", "pkg/style.py": STYLE}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert (s["transparent_background"] > 50) == rule


@pytest.mark.parametrize("rule", [True, False])
def test_a_fresh_returned_receiver_is_as_fresh_as_a_constructed_one(tmp_path, monkeypatch,
                                                                    rule):
    monkeypatch.setattr(evidence_members, "RETURNED_FRESH", rule)
    text = ("from .style import Style\n\n\n"
            "class Syntax:\n"
            "    def _get_base_style(self) -> Style:\n        return Style()\n\n"
            "    def highlight(self, code):\n"
            "        base_style = self._get_base_style()\n"
            "        justify = (\n            'default' if base_style.")
    files = {"pkg/__init__.py": "", "pkg/style.py": STYLE}
    s = _scores(tmp_path, monkeypatch, files, text)
    # 0.7 (`ranking.FRESH_RECEIVER_MEMBER`) against 0.45 (`RECEIVER_MEMBER`) of 100
    assert (s["transparent_background"] > 55) == rule


@pytest.mark.parametrize("rule", [True, False])
def test_a_returned_receivers_used_member_is_as_near_as_the_receiver(tmp_path, monkeypatch,
                                                                     rule):
    # `transparent_background` is used 200 rows above as `base_style.` too: with the
    # receiver typed here, it is as near as `base_style`, not as its far use
    monkeypatch.setattr(evidence_members, "RETURNED_NEAR", rule)
    filler = "".join(f"    def filler_{k}(self):\n        return {k}\n\n" for k in range(70))
    text = ("from .style import Style\n\n\n"
            "class Syntax:\n"
            "    def _get_base_style(self) -> Style:\n        return Style()\n\n"
            "    def highlight(self, code):\n"
            "        base_style = self._get_base_style()\n"
            "        return base_style.member_1(code)\n\n"
            "    def early(self, base_style):\n"
            "        return base_style.transparent_background\n\n" + filler +
            "    def render(self, code):\n"
            "        base_style = self._get_base_style()\n"
            "        justify = (\n            'default' if base_style.")
    files = {"pkg/__init__.py": "", "pkg/style.py": STYLE}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert (s["transparent_background"] > 80) == rule


HOOKS = ("class HookCaller:\n" +
         "".join(f"    def member_{k}(self, a):\n        pass\n\n" for k in range(4)) +
         "    def _add_hookimpl(self, impl):\n        pass\n\n"
         "    def _maybe_apply_history(self, method):\n        pass\n")


@pytest.mark.parametrize("rule", [True, False])
def test_a_friend_classs_private_members_score_as_public_ones(tmp_path, monkeypatch, rule):
    # pluggy: `hook._add_hookimpl(impl)` on `hook: HookCaller`, then
    # `hook._maybe_apply_history(impl)`: the file is the class's friend
    monkeypatch.setattr(receiver_private, "FRIENDS", rule)
    text = ("from .hooks import HookCaller\n\n\n"
            "def register(hooks, name, impl):\n"
            "    hook: HookCaller = hooks.get(name)\n"
            "    hook._add_hookimpl(impl)\n"
            "    if hook.member_1(impl):\n"
            "        hook.")
    files = {"pkg/__init__.py": "", "pkg/hooks.py": HOOKS}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert (s["_maybe_apply_history"] > 50) == rule


@pytest.mark.parametrize("rule", [True, False])
def test_private_members_stay_discounted_for_a_class_the_file_is_no_friend_of(
        tmp_path, monkeypatch, rule):
    monkeypatch.setattr(receiver_private, "FRIENDS", rule)
    text = ("from .hooks import HookCaller\n\n\n"
            "def register(hooks, name, impl):\n"
            "    hook: HookCaller = hooks.get(name)\n"
            "    if hook.member_1(impl):\n"
            "        hook.")
    files = {"pkg/__init__.py": "", "pkg/hooks.py": HOOKS}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert s["_maybe_apply_history"] < 30


ITEMS = ("class Item:\n    def as_string(self) -> str:\n        return ''\n\n\n"
         "class String(Item):\n" +
         "".join(f"    def member_{k}(self, a):\n        pass\n\n" for k in range(4)) +
         "    def as_string(self) -> str:\n        return ''\n")


@pytest.mark.parametrize("rule", [True, False])
def test_a_member_called_on_other_receivers_only_is_unused_by_a_returned_one(
        tmp_path, monkeypatch, rule):
    # tomlkit: `key_str = self._parse_string(..)` (-> String), `key.as_string()`
    # elsewhere: `key_str.as_string()` is likely next as String's own
    monkeypatch.setattr(evidence_members, "OTHERS_UNUSED", rule)
    filler = "".join(f"    def filler_{k}(self):\n        return {k}\n\n" for k in range(70))
    text = ("from .items import Item, String\n\n\n"
            "class Parser:\n"
            "    def _parse_string(self, kind) -> String:\n        return String()\n\n"
            "    def _parse_key(self, key: Item):\n        return key.as_string()\n\n" +
            filler +
            "    def _parse_quoted_key(self):\n"
            "        key_str = self._parse_string(1)\n"
            "        original = key_str.")
    files = {"pkg/__init__.py": "", "pkg/items.py": ITEMS}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert (s["as_string"] > 55) == rule  # 70 (fresh) against 41 (`key: Item`, far)
