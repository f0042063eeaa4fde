"""Python rules of session 8: the names a twin of the function around the cursor uses,
and it does not yet, are sent ahead of names with no such relative
(`evidence_similar.py`); the file's own import statements weigh less than the
signatures (`evidence_pyjs.IMPORT_FACTOR`). The assertions fail with the rule off."""

from flashls.context import evidence_similar
from flashls.context.analysis import analyze
from flashls.context.languages import language_for
from tests.files import sent_context as _sent

MODELS = ("class Response:\n"
          + "".join(f"    def helper_number_{k}(self, first_argument, second_argument):\n"
                    "        pass\n\n" for k in range(30))
          + "    @property\n    def reason_phrase(self) -> str:\n        pass\n")
OTHERS = "".join(f"def filler_function_{k}(first_argument, second_argument, third_one):\n"
                 "    pass\n\n" for k in range(40))


def _body(prefix: str, last: str) -> str:
    return (f"    {prefix}def send_single_request(self, request, transport):\n"
            "        timer = start_timer(request)\n"
            "        response = transport.handle_request(request)\n"
            "        response.request = request\n"
            "        log_response(request.method, request.url, response.status_code,\n"
            f"                     {last}\n"
            "        return response\n\n")


# a sync method and its async twin, 300 lines apart: the twin calls
# `response.reason_phrase`; the method at the cursor is being written
TEXT = ("from .models import Response\nfrom .others import *\n\n\n"
        "class Client:\n" + _body("", "response.reason_phrase)")
        + "".join(f"    def method_{k}(self):\n        return filler_function_{k % 40}(1, 2, 3)\n\n"
                  for k in range(100))
        + "class AsyncClient:\n"
        + "    async def send_single_request(self, request, transport):\n"
        "        timer = start_timer(request)\n"
        "        response = await transport.handle_request(request)\n"
        "        response.request = request\n"
        "        log_response(request.method, request.url, response.status_code,\n"
        "                     ")


def _request(tmp_path, other: tuple[str, str] = ("others", OTHERS),
             models: str = MODELS, text: str = TEXT) -> str:
    """The context sent at the end of `pkg/main.py` (`text`) at 500 tokens."""
    return _sent(tmp_path, {"pkg/__init__.py": "", "pkg/models.py": models,
                            f"pkg/{other[0]}.py": other[1]}, "pkg/main.py", text, budget=500)


def test_a_twin_function_brings_the_name_it_uses_next(tmp_path):
    assert "def reason_phrase(self) -> str:" in _request(tmp_path)


def test_without_the_rule_the_far_use_does_not_fit(tmp_path, monkeypatch):
    monkeypatch.setattr(evidence_similar, "WEIGHT", 0.0)
    assert "def reason_phrase(self) -> str:" not in _request(tmp_path)


def test_only_functions_much_like_the_anchor_count():
    text = ("def twin_a(request, transport):\n    timer = start_timer(request)\n"
            "    return transport.send(request, timer, reason_phrase)\n\n"
            "def twin_b(request, transport):\n    timer = start_timer(request)\n"
            "    return transport.send(request, timer, other_name)\n\n"
            "def unrelated(x):\n    y = compute_something(x)\n    return y + unrelated_name\n\n"
            "def another(z):\n    w = something_else(z)\n    return w\n\n"
            "def fifth(q):\n    return q\n")
    spec = language_for("", "m.py")
    a = analyze(spec, text, ("similar", text))
    anchor = (4, 6)  # twin_b
    found = evidence_similar.similar_names(a, anchor, 6)
    assert "reason_phrase" in found
    assert "unrelated_name" not in found and "compute_something" not in found


HELPERS = "".join(f"def helper_{k}(value, other):\n    return value\n\n" for k in range(20))
WIDGET = ("class Widget:\n    def resize_to_fit(self, width_limit, height_limit):\n        pass\n\n"
          "    def redraw_all(self, region, force_flag):\n        pass\n")
# a 22-line import statement the anchor uses one name of, and a receiver declared in
# the anchor whose methods are not called yet
PAINT = ("from .helpers import (\n" + "".join(f"    helper_{k},\n" for k in range(20)) + ")\n"
         "from .models import Widget\n\n\n"
         "def far_away():\n" + "".join(f"    helper_{k}(1, 2)\n" for k in range(20)) + "\n\n"
         + "".join(f"def filler_{k}(x):\n    return x + {k}\n\n\n" for k in range(80))
         + "def paint(region):\n    w = Widget()\n"
         + "".join(f"    step_{k} = region + {k}\n" for k in range(12))
         + "    helper_0(region, step_0)\n    w.")


def _paint(tmp_path):
    return _request(tmp_path, ("helpers", HELPERS), WIDGET, PAINT)


def test_the_files_own_import_statements_give_way_to_signatures(tmp_path):
    assert "def redraw_all(self, region, force_flag):" in _paint(tmp_path)


def test_at_full_weight_the_import_statement_takes_the_room(tmp_path, monkeypatch):
    from flashls.context import evidence_pyjs
    monkeypatch.setattr(evidence_pyjs, "IMPORT_FACTOR", {"python": 1.0})
    sent = _paint(tmp_path)
    assert "from .helpers import (" in sent
    assert "def redraw_all(self, region, force_flag):" not in sent
