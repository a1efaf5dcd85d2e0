"""Red-team attacks on "must raise ValueError": exceptions are judged by ``isinstance``, from the
names of the raised exception's classes (its MRO) that the learner's side sends.

A learner's ``class InputError(ValueError)`` is a ValueError, in one call and in a refusals batch
alike; a class of its own merely *named* ValueError (in its module, or claiming the module
``builtins``, or bound over ``builtins.ValueError``) is not, and the message says so. Exceptions
whose ``__str__``, attributes or metaclass misbehave are described safely (never an IE, never a
dead process): the batch and the calls one at a time give the same report.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from judge.learner import protocol
from judge.learner.code import MAX_CLASS_NAME, MAX_CLASSES, describe_exception, exception_classes
from judge.learner.wire import WireError
from judge.sandbox.launchers import WarmLocalLauncher
from judge.verdicts import Verdict
from tests.judge.refusals_support import batched_and_one_by_one, refusals_exercise

TESTS = """
import torch

from judge.checks.refusals import BadCall, expect_calls_refused, expect_raises


def test_one_call(sub, ctx):
    '''One bad input, one call

    zh: 一个非法输入，一次调用
    '''
    with expect_raises(ValueError, "refuse() with k = 1"):
        sub.refuse(torch.ones(2), k=1)


def test_table(sub, ctx):
    '''A table of bad inputs, in one request

    zh: 一组非法输入，一次请求
    '''
    expect_calls_refused([
        BadCall(getattr(sub, name), f"{name}() with k = {k}", args=(torch.ones(2),), kwargs={"k": k})
        for k in range(1, 4) for name in ("refuse", "other")
    ])
"""

COMMON = "import builtins, sys\nimport torch\n\n"


def _learner(body: str) -> str:
    return COMMON + textwrap.dedent(body) + "\n\ndef other(x, k, g=None):\n    return refuse(x, k, g)\n"


def _raising(definition: str, raised: str = "Raised('bad input')") -> str:
    """A learner that defines ``Raised`` (and what else ``definition`` says) and raises ``raised`` for k != 0."""
    return (
        textwrap.dedent(definition)
        + f"\n\ndef refuse(x, k, g=None):\n    if k:\n        raise {raised}\n    return 0\n"
    )


# name -> (the learner, whether it refuses as a ValueError must, a phrase its failure message holds)
ATTACKS = {
    # --- genuine ValueErrors
    "a subclass of ValueError": (_raising("class Raised(ValueError):\n    pass"), True, None),
    "a subclass of a subclass": (
        _raising("class Base(ValueError):\n    pass\n\nclass Raised(Base):\n    pass"),
        True,
        None,
    ),
    "a subclass of UnicodeError (a ValueError)": (_raising("class Raised(UnicodeError):\n    pass"), True, None),
    "ValueError and KeyError both": (_raising("class Raised(KeyError, ValueError):\n    pass"), True, None),
    "forty classes of its own above ValueError": (
        _raising("Raised = ValueError\nfor i in range(40):\n    Raised = type(f'Level{i}', (Raised,), {})\n"),
        True,
        None,
    ),
    "a metaclass whose mro() puts ValueError in (Python's isinstance agrees)": (
        _raising(
            """
            class Meta(type):
                def mro(cls):
                    return [cls, ValueError, Exception, BaseException, object]

            class Raised(Exception, metaclass=Meta):
                pass

            assert isinstance(Raised('x'), ValueError)
            """
        ),
        True,
        None,
    ),
    "a name of a thousand characters": (
        _raising("Raised = type('E' * 1000, (ValueError,), {})"),
        True,
        None,
    ),
    "a module that is not a string": (
        _raising("class Raised(ValueError):\n    pass\n\nRaised.__module__ = 12"),
        True,
        None,
    ),
    "a module whose __str__ raises": (
        _raising(
            """
            class Odd(str):
                def __str__(self):
                    raise SystemExit(3)

            class Raised(ValueError):
                pass

            Raised.__module__ = Odd('odd')
            """
        ),
        True,
        None,
    ),
    # --- misbehaving exceptions that are still ValueErrors
    "a __str__ that raises SystemExit": (
        _raising("class Raised(ValueError):\n    def __str__(self):\n        raise SystemExit(3)"),
        True,
        None,
    ),
    "a __str__ that returns a number": (
        _raising("class Raised(ValueError):\n    def __str__(self):\n        return 5"),
        True,
        None,
    ),
    "a __str__ that returns a hostile str": (
        _raising(
            """
            class Hostile(str):
                def strip(self, *args):
                    raise SystemExit(4)

                def __getitem__(self, index):
                    raise SystemExit(5)

                def __contains__(self, other):
                    raise SystemExit(6)

                def encode(self, *args, **kwargs):
                    raise SystemExit(7)

            class Raised(ValueError):
                def __str__(self):
                    return Hostile('bad input')
            """
        ),
        True,
        None,
    ),
    "a __repr__ that raises": (
        _raising("class Raised(ValueError):\n    def __repr__(self):\n        raise SystemExit(3)"),
        True,
        None,
    ),
    "a __class__ that raises": (
        _raising(
            """
            class Raised(ValueError):
                @property
                def __class__(self):
                    raise SystemExit(3)
            """
        ),
        True,
        None,
    ),
    "a metaclass whose __name__, __module__ and __mro__ raise": (
        _raising(
            """
            class Meta(type):
                def _no(cls):
                    raise SystemExit(3)

                __name__ = property(_no)
                __module__ = property(_no)
                __mro__ = property(_no)

            class Raised(ValueError, metaclass=Meta):
                pass
            """
        ),
        True,
        None,
    ),
    "a metaclass that raises on every attribute": (
        _raising(
            """
            class Meta(type):
                def __getattribute__(cls, name):
                    raise SystemExit(3)

            class Raised(ValueError, metaclass=Meta):
                pass
            """
        ),
        True,
        None,
    ),
    # --- not ValueErrors
    "InputError(Exception)": (
        _raising("class Raised(Exception):\n    pass\n\nRaised.__name__ = Raised.__qualname__ = 'InputError'"),
        False,
        "it raised InputError (an Exception): bad input",
    ),
    "a class of its own named ValueError": (
        _raising("class ValueError(Exception):\n    pass", "ValueError('bad input')"),
        False,
        "it raised ValueError-lookalike (a class of your own named ValueError, derived from Exception, not "
        "Python's ValueError)",
    ),
    "a class named ValueError that claims the module builtins": (
        _raising("Posing = type('ValueError', (Exception,), {'__module__': 'builtins'})", "Posing('bad input')"),
        False,
        "ValueError-lookalike",
    ),
    "a class bound over builtins.ValueError": (
        _raising(
            "class Fake(Exception):\n    pass\n\nFake.__name__ = Fake.__qualname__ = 'ValueError'\n"
            "Fake.__module__ = 'builtins'\nbuiltins.ValueError = Fake",
            "ValueError('bad input')",
        ),
        False,
        "ValueError-lookalike",
    ),
    "a metaclass whose __mro__ claims ValueError": (
        _raising(
            """
            class Meta(type):
                @property
                def __mro__(cls):
                    return (cls, ValueError, Exception, BaseException, object)

            class Raised(Exception, metaclass=Meta):
                pass
            """
        ),
        False,
        "it raised Raised (an Exception)",
    ),
    "a BaseException named ValueError": (
        _raising("class ValueError(BaseException):\n    pass", "ValueError('bad input')"),
        False,
        "derived from BaseException",
    ),
    "NotImplementedError": (_raising("", "NotImplementedError('refuse: write it here')"), False, "NotImplementedError"),
}


@pytest.fixture(scope="module")
def exercise(tmp_path_factory):
    folder = tmp_path_factory.mktemp("classes") / "913-exception-classes"
    return refusals_exercise(folder, TESTS, ("x", "k", "g"), time_limit_s=4.0, wall_limit_s=16.0)


@pytest.fixture(scope="module")
def warm():
    with WarmLocalLauncher() as launcher:
        yield launcher


def _summary(report) -> tuple:
    cases = [(c.name, c.verdict, c.message, c.diagnosis, c.rule) for c in report.cases]
    return report.verdict, report.message, report.diagnosis, cases


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_an_exception_is_judged_by_its_classes_in_one_call_and_in_a_batch(
    name, exercise, warm, learner_file, monkeypatch
):
    source, refuses, phrase = ATTACKS[name]
    batched, one_by_one = batched_and_one_by_one(exercise, learner_file(_learner(source)), monkeypatch, launcher=warm)
    assert _summary(batched) == _summary(one_by_one)
    verdicts = {c.name: c.verdict for c in batched.cases}
    assert Verdict.IE not in verdicts.values(), batched.message
    if refuses:
        assert batched.verdict is Verdict.AC, [(c.name, c.message) for c in batched.cases]
    else:
        assert verdicts["one_call"] is Verdict.WA and verdicts["table"] is Verdict.WA, batched.message
        for case in batched.cases:
            assert phrase in case.message, case.message
            assert case.diagnosis is None


def test_a_lookalike_and_a_subclass_are_named_for_what_they_are():
    """The message's description of the raised type, from the classes alone."""
    from judge.learner.interface import describe_raised

    assert describe_raised("ValueError", ("builtins.ValueError", "builtins.Exception")) == "ValueError"
    assert (
        describe_raised("InputError", ("submission.InputError", "builtins.ValueError")) == "InputError (a ValueError)"
    )
    assert describe_raised("Oops", ("submission.Oops", "builtins.Exception")) == "Oops (an Exception)"
    assert describe_raised("ValueError", ("~builtins.ValueError", "builtins.Exception")).startswith(
        "ValueError-lookalike (a class of your own named ValueError, derived from Exception"
    )
    assert describe_raised("Odd", ()) == "Odd"  # nothing known of its classes: its name


# --- the description itself, in this process ----------------------------------------------------


def _caught(source: str, call: str = "raise Raised('bad input')") -> BaseException:
    namespace: dict = {}
    exec(textwrap.dedent(source) + f"\n\ndef _go():\n    {call}\n", namespace)
    try:
        namespace["_go"]()
    except BaseException as error:  # noqa: BLE001 - whatever the source raised
        return error
    raise AssertionError("it did not raise")


# Not the attack that rebinds builtins.ValueError: run here, it would rebind it in the test process.
@pytest.mark.parametrize(
    "name", sorted(name for name, (source, _, _) in ATTACKS.items()
                   if name != "NotImplementedError" and "builtins.ValueError = Fake" not in source)
)
def test_a_description_is_always_one_the_judge_accepts(name):
    source = ATTACKS[name][0].split("\ndef refuse(")[0]
    error = _caught("import builtins\n" + source)
    described = describe_exception(error, "solution.py")
    info = protocol.exception_info(described)  # never a WireError
    assert info.mro and len(info.mro) <= MAX_CLASSES
    assert all(len(n) <= MAX_CLASS_NAME for n in info.mro)
    refuses = ATTACKS[name][1]
    assert ("builtins.ValueError" in info.mro) is refuses, info.mro


def test_a_rebound_builtin_is_not_python_s_own(monkeypatch):
    """The judge's names of Python's exceptions were taken before any learner code ran."""
    import builtins

    class Fake(Exception):
        pass

    Fake.__name__ = Fake.__qualname__ = "ValueError"
    Fake.__module__ = "builtins"
    monkeypatch.setattr(builtins, "ValueError", Fake)
    assert exception_classes(Fake)[0] == "~builtins.ValueError"
    assert "builtins.ValueError" not in exception_classes(Fake)


def test_a_deep_hierarchy_keeps_python_s_bases():
    cls: type = ValueError
    for level in range(100):
        cls = type(f"Level{level}", (cls,), {})
    names = exception_classes(cls)
    assert len(names) <= MAX_CLASSES
    assert names[0].endswith("Level99") and names[-3:] == [
        "builtins.ValueError",
        "builtins.Exception",
        "builtins.BaseException",
    ]


@pytest.mark.parametrize(
    "mro, message",
    [
        ("builtins.ValueError", "'mro' must be a list of at most 32 class names"),  # not a list
        (["builtins.ValueError", 3], "a class name must be a string"),
        (["x" * 257], "a class name is longer than 256 characters"),
        (["builtins.ValueError"] * 33, "'mro' must be a list of at most 32 class names"),
    ],
)
def test_a_malformed_list_of_classes_is_refused(mro, message):
    info = {"type": "ValueError", "message": "bad", "line": None, "traceback": "", "memory": False, "mro": mro}
    with pytest.raises(WireError, match=message):
        protocol.exception_info(info)


def test_a_description_without_its_classes_is_refused():
    exactly = "exception must be an object with exactly type, message, line, traceback, memory, mro"
    with pytest.raises(WireError, match=exactly):
        protocol.exception_info(
            {"type": "ValueError", "message": "bad", "line": None, "traceback": "", "memory": False}
        )


def test_the_judge_names_a_class_as_the_learner_s_side_does():
    from judge.learner.code import qualified_name

    for cls in (ValueError, UnicodeDecodeError, NotImplementedError, re.error):
        assert exception_classes(cls)[0] == qualified_name(cls)
