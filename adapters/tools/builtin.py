"""The chat graph's local tools: a safe calculator, the current time, the document reader.

The calculator walks the parsed AST of numbers and arithmetic operators only —
no ``eval``, no names, no attribute access — and bounds exponents and result
size so one request cannot pin a CPU or fill memory. Tool errors come back as
text for the model, never as exceptions into the run, and that text is always
one of our own sentences: never an exception's text, which can carry paths.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from langchain_core.tools import BaseTool, tool

from aimind_memory.adapters.errors import CalculationError, ResourceError
from aimind_memory.adapters.tools.resources import list_resources, read_resource

MAX_TOOL_ROUNDS = 6
"""Tool rounds per turn in the graphs that offer tools; after that the model must answer
without them."""
TOOL_TIMEOUT_S = 60.0
TOOL_FAILED = "error: the tool failed; the details are in the server log"
TOOL_TIMED_OUT = "error: the tool timed out"
EXPRESSION_MAX_CHARS = 200
MAX_EXPONENT = 1_000
MAX_INT_BITS = 4_096
"""Largest integer a calculation may produce (about 1,200 decimal digits)."""
MAX_DEPTH = 50
TIMEZONE_ECHO_CHARS = 64
"""How much of an unknown timezone name the error repeats."""

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "abs": abs,
    "round": round,
    "sqrt": math.sqrt,
    "min": min,
    "max": max,
}
_CONSTANTS = {"pi": math.pi, "e": math.e}


def _bounded(value: float) -> float:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise CalculationError("the result is too large")
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculationError("the result is not a finite number")
    return value


def _power(base: float, exponent: float) -> float:
    if abs(exponent) > MAX_EXPONENT:
        raise CalculationError(f"exponents are limited to ±{MAX_EXPONENT}")
    if (
        isinstance(base, int)  # exact: integer powers grow without overflowing
        and isinstance(exponent, int)
        and exponent > 0
        and max(base.bit_length(), 1) * exponent > MAX_INT_BITS * 2
    ):
        raise CalculationError("the result is too large")
    try:
        power: float = base**exponent
        return power
    except ZeroDivisionError:
        raise CalculationError("division by zero") from None
    except OverflowError:
        raise CalculationError("the result is too large") from None


def _eval(node: ast.AST, depth: int = 0) -> float:
    if depth > MAX_DEPTH:
        raise CalculationError("the expression is nested too deeply")
    if isinstance(node, ast.Expression):
        return _eval(node.body, depth + 1)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise CalculationError("only numbers are allowed")
        return _bounded(node.value)
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand, depth + 1))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, depth + 1), _eval(node.right, depth + 1)
        if isinstance(node.op, ast.Pow):
            return _bounded(_power(left, right))
        try:
            return _bounded(_BINARY[type(node.op)](left, right))
        except ZeroDivisionError:
            raise CalculationError("division by zero") from None
        except OverflowError:
            raise CalculationError("the result is too large") from None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        args = [_eval(a, depth + 1) for a in node.args]
        try:
            return _bounded(_FUNCTIONS[node.func.id](*args))
        except TypeError:
            raise CalculationError(f"{node.func.id}() does not take these arguments") from None
        except ValueError:
            raise CalculationError(f"{node.func.id}() is not defined for these values") from None
        except OverflowError:
            raise CalculationError("the result is too large") from None
    raise CalculationError(
        "only numbers, + - * / // % **, parentheses and abs/round/sqrt/min/max are allowed"
    )


def calculate(expression: str) -> float:
    """Evaluate an arithmetic expression safely; raises ``CalculationError``."""
    if not isinstance(expression, str) or not expression.strip():
        raise CalculationError("the expression is empty")
    if len(expression) > EXPRESSION_MAX_CHARS:
        raise CalculationError(f"expressions are limited to {EXPRESSION_MAX_CHARS} characters")
    try:
        tree = ast.parse(expression.strip().replace("^", "**"), mode="eval")
    except SyntaxError:
        raise CalculationError("the expression is not valid arithmetic") from None
    return _eval(tree)


def _format(value: float) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression, e.g. "12 * (3 + 4) / 2" or "2 ** 10".

    Supports + - * / // % ** (or ^), parentheses, pi, e and abs/round/sqrt/min/max.
    """
    try:
        return _format(calculate(expression))
    except CalculationError as exc:
        return f"error: {exc}"


@tool
def current_time(timezone: str = "UTC") -> str:
    """The current date and time in an IANA timezone such as "UTC" or "Asia/Shanghai"."""
    try:
        zone = ZoneInfo(timezone) if timezone and timezone.upper() != "UTC" else UTC
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: the tz database's path
        return f"error: unknown timezone {timezone[:TIMEZONE_ECHO_CHARS]!r}"
    return datetime.now(zone).isoformat(timespec="seconds")


@tool("read_resource")
def read_resource_tool(name: str = "") -> str:
    """Read a document from the local documents folder by relative name.

    Call with an empty name to list the available documents.
    """
    if not name.strip():
        names = list_resources()
        return "available documents: " + (", ".join(names) if names else "(none)")
    try:
        return read_resource(name)
    except ResourceError as exc:
        return f"error: {exc}"


def local_tools() -> list[BaseTool]:
    """The tools every chat turn can use, before MCP tools are added."""
    return [calculator, current_time, read_resource_tool]
