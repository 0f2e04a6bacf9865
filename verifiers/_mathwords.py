"""Words around a math answer: sentences, number words, percent words and units.

Used by the math comparer (``mathparse.read_answer(..., Options(words=True))``) before the
grammar sees the answer. Every pass works on whole tokens of the answer's own tokenizer, never
on substrings, so ``someone`` is not ``one`` and ``threefold`` is not ``three``. The policy
(what is read, what is refused) is documented in docs/verifiers.md, "Units, number words".

- :func:`unwrap_answer`: a single ``\\boxed{}`` inside a sentence, markdown bold, lead phrases
  (``**Answer:**``, ``The final answer is``) and Minerva's ``I hope it is correct.``; several
  different boxes are refused.
- :func:`read_number_words`: ``three``, ``twenty-five``, ``one hundred and five``,
  ``5 million``, ``two thirds`` become numbers; anything that is not a whole number phrase stays
  a word (and the parser refuses it).
- :func:`read_percent_words`: ``40 percent`` / ``per cent`` / ``pct`` is ``40\\%``.
- :func:`read_units`: a unit (``cm``, ``\\text{ km/h}``, ``square feet``, ``mph``) or a counted
  noun (``18 eggs``) that closes an item is taken out of the answer and returned as a
  :class:`Unit` with its dimension and exact scale, so the comparer can refuse ``5 cm`` for
  ``5 m`` and accept ``150 cm`` for ``1.5 m``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

Token = tuple[str, str]


class ParseError(ValueError):
    """The text is not an answer this grammar understands (or is too large to build)."""


# ------------------------------------------------------------------------------------------
# Sentences around the answer
# ------------------------------------------------------------------------------------------

_BOLD = re.compile(r"(?<![\w)}*])\*\*(?=\S)(.+?)(?<=\S)\*\*(?![\w({*])")
_HEADING = re.compile(r"^[ \t]*#+[ \t]*", re.MULTILINE)
_LEAD = re.compile(
    r"^\s*(?:(?:therefore|thus|hence|so)\s*,?\s*)?(?:the\s+)?(?:final\s+)?(?:answer|solution|result)\s*"
    r"(?:is\b|:|=|(?=\s*(?:\$|\\\[|\\\()))\s*:?\s*",  # also "Answer $9$", "Answer \[ 9 \]"
    re.IGNORECASE,
)
_BOLD_LEAD = re.compile(r"\\text(?:bf|it|rm)?\s*\{\s*((?:final\s+)?answer\s*:?)\s*\}", re.IGNORECASE)
_HOPE = re.compile(r"I hope it is correct\.?$", re.IGNORECASE)


# "The largest $n$ is 34": a sentence naming the one letter asked for, then its value
_NAMED_LEAD = re.compile(r"^\s*the\s+(?:[a-z]+\s+){0,3}[a-z]\s+is\s+(?!not\b)", re.IGNORECASE)


def strip_lead(text: str) -> str:
    """``Answer: 3``, ``Final Answer: The final answer is 3``, ``Therefore, the answer is 3``
    and ``The largest n is 3`` mean 3 (one lead phrase after another); a trailing period ends
    a sentence."""
    for _ in range(3):  # "Final Answer: The final answer is 3" has two
        text = _LEAD.sub("", text, count=1)
    text = _NAMED_LEAD.sub("", text, count=1)
    text = text.strip()
    return text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else text


def box_list(contents: list[str]) -> str:
    """Several different boxes as one answer (reasoning models box each solution): the set of
    their values, which equals a reference list or set but never a single value or an ordered
    tuple (``\\boxed{3} or \\boxed{4}`` is not the point (3, 4)); boxes that each assign a
    name (``\\boxed{k = 45}``, ``\\boxed{n = 2}``) are one system, matched name by name."""
    if all("=" in content for content in contents):
        return ", ".join(contents)
    return "\\{" + ", ".join(contents) + "\\}"


def unwrap_answer(text: str) -> str:
    """The answer a short sentence states: the content of its ``\\boxed{}`` if it has one,
    without markdown bold, headings or lead phrases. Several different boxes are one answer
    list (``\\boxed{1}, \\boxed{2}`` is ``1, 2``), which never equals a single value."""
    from palaestra.verifiers.extract import find_boxes, normalize_space

    boxes, error = find_boxes(text)
    if error:
        raise ParseError(error)
    if boxes:
        contents = list(dict.fromkeys(normalize_space(content) for _start, _end, content in boxes))
        text = boxes[-1][2] if len(contents) == 1 else box_list(contents)
    text = _BOLD.sub(r"\1", text)
    text = _BOLD_LEAD.sub(r"\1", text)
    text = _HEADING.sub("", text).rstrip()
    hope = _HOPE.search(text, max(0, len(text) - 40))  # only ever the last words
    text = text[: hope.start()] if hope else text
    return strip_lead(text)


# ------------------------------------------------------------------------------------------
# Number words
# ------------------------------------------------------------------------------------------

_SMALL = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())
}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_DENOMINATORS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4,
    "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8,
    "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10, "hundredth": 100, "hundredths": 100,
    "thousandth": 1000, "thousandths": 1000,
}  # fmt: skip
NUMBER_WORDS = (
    frozenset(_SMALL) | frozenset(_TENS) | frozenset(_SCALES) | {"hundred"} | frozenset(_DENOMINATORS)
)


def _word(tok: Token) -> str | None:
    return tok[1].lower() if tok[0] == "word" else None


def _below_hundred(toks: list[Token], i: int) -> tuple[int, int] | None:
    """``seven``, ``seventeen``, ``seventy``, ``seventy-seven``, ``seventy seven``."""
    w = _word(toks[i])
    if w in _SMALL:
        return _SMALL[w], i + 1
    if w not in _TENS:
        return None
    value, j = _TENS[w], i + 1
    if toks[j] == ("op", "-") and _word(toks[j + 1]) in _SMALL and 0 < _SMALL[_word(toks[j + 1]) or ""] < 10:
        return value + _SMALL[_word(toks[j + 1]) or ""], j + 2
    if _word(toks[j]) in _SMALL and 0 < _SMALL[_word(toks[j]) or ""] < 10:
        return value + _SMALL[_word(toks[j]) or ""], j + 1
    return value, j


def _group(toks: list[Token], i: int) -> tuple[int, int] | None:
    """A group below a thousand: ``seven hundred and five``, ``twelve hundred``, ``forty``."""
    first = _below_hundred(toks, i)
    if first is None:
        return None
    value, j = first
    if _word(toks[j]) != "hundred" or value == 0:
        return first
    value, j = value * 100, j + 1
    k = j + 1 if _word(toks[j]) == "and" else j
    rest = _below_hundred(toks, k)
    if rest is not None and rest[0] > 0:
        return value + rest[0], rest[1]
    return value, j


def _cardinal(toks: list[Token], i: int) -> tuple[int, int] | None:
    """A whole number phrase: groups with descending scale words (``two million five thousand``)."""
    group = _group(toks, i)
    if group is None:
        return None
    total, j = 0, i
    last_scale = None
    while group is not None:
        value, j = group
        scale_word = _word(toks[j])
        if scale_word in _SCALES and value > 0 and (last_scale is None or _SCALES[scale_word] < last_scale):
            last_scale = _SCALES[scale_word]
            total += value * last_scale
            j += 1
            group = _group(toks, j)
            continue
        return total + value, j
    return total, j


def _decimal_times(text: str, factor: int) -> str:
    """``2.5`` times ``10^6`` as an exact decimal string (``2500000``)."""
    value = Fraction(text) * factor
    if value.denominator == 1:
        return str(value.numerator)
    whole, frac = divmod(value.numerator, value.denominator)
    digits = ""
    while frac and len(digits) < 30:
        frac *= 10
        d, frac = divmod(frac, value.denominator)
        digits += str(d)
    return f"{whole}.{digits}"


Spaced = list[bool]  # spaced[k]: token k followed whitespace in the text


def read_number_words(tokens: list[Token], spaced: Spaced) -> tuple[list[Token], Spaced]:
    """Whole number phrases to number tokens; ``5 million`` to ``5000000``. A fraction phrase
    (``two thirds``) becomes ``(2/3)``."""
    out: list[Token] = []
    out_spaced: Spaced = []
    i = 0
    padded = tokens + [("eof", "")] * 4

    def emit(new: list[Token], space: bool) -> None:
        out.extend(new)
        out_spaced.extend([space] + [False] * (len(new) - 1))

    while i < len(tokens):
        tok = tokens[i]
        spelled = _spelled_number(tok)
        if spelled is not None:  # \text{three}
            emit(spelled, spaced[i])
            i += 1
            continue
        if (
            tok[0] == "num"
            and "e" not in tok[1].lower()
            and _word(padded[i + 1]) in _SCALES | {"hundred": 100}
        ):
            scale = _SCALES.get(_word(padded[i + 1]) or "", 100)
            emit([("num", _decimal_times(tok[1], scale))], spaced[i])
            i += 2
            continue
        if _word(tok) in ("negative", "minus") and (
            padded[i + 1][0] == "num" or _word(padded[i + 1]) in NUMBER_WORDS
        ):
            emit([("op", "-")], spaced[i])
            i += 1
            continue
        number = _cardinal(padded, i) if _word(tok) in NUMBER_WORDS else None
        if number is None:
            emit([tok], spaced[i])
            i += 1
            continue
        value, j = number
        if padded[j] == ("op", "-") and _word(padded[j + 1]) in _DENOMINATORS:
            j += 1  # three-fourths
        denominator = _DENOMINATORS.get(_word(padded[j]) or "")
        if denominator is not None and value > 0:
            emit(
                [("op", "("), ("num", str(value)), ("op", "/"), ("num", str(denominator)), ("op", ")")],
                spaced[i],
            )
            j += 1
        else:
            emit([("num", str(value))], spaced[i])
        i = j
    return out, out_spaced


def _spelled_number(tok: Token) -> list[Token] | None:
    """The tokens of a number written out inside ``\\text{}``, if that is all the text holds."""
    if tok[0] != "text" or not re.fullmatch(r"[A-Za-z]+(?:[ -][A-Za-z]+)*", tok[1].strip()):
        return None
    inner: list[Token] = []
    for piece in re.findall(r"[A-Za-z]+|-", tok[1]):
        inner.append(("op", "-") if piece == "-" else ("word", piece))
    if _word(inner[0]) not in NUMBER_WORDS:
        return None
    converted, _ = read_number_words(inner, [False] * len(inner))
    return converted if all(kind != "word" for kind, _v in converted) else None


def read_percent_words(tokens: list[Token], spaced: Spaced) -> tuple[list[Token], Spaced]:
    """``percent``, ``per cent``, ``percentage``, ``pct`` after a value are the ``%`` sign."""
    out: list[Token] = []
    out_spaced: Spaced = []
    i = 0
    while i < len(tokens):
        w = _word(tokens[i]) or (tokens[i][1].strip().lower() if tokens[i][0] == "text" else None)
        step = 0
        if w in ("percent", "percentage", "pct", "per cent"):
            step = 1
        elif w == "per" and i + 1 < len(tokens) and _word(tokens[i + 1]) == "cent":
            step = 2
        if step and out and _ends_value(out[-1]):
            out.append(("cmd", "percent"))
            out_spaced.append(spaced[i])
            i += step
            continue
        out.append(tokens[i])
        out_spaced.append(spaced[i])
        i += 1
    return out, out_spaced


# ------------------------------------------------------------------------------------------
# Units
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """A unit read after a value: its dimension (base name -> exponent) and exact scale."""

    name: str
    dimension: tuple[tuple[str, int], ...]
    scale: Fraction

    def __str__(self) -> str:
        return self.name


def _unit(
    name: str, dimension: str, scale: Fraction | int = 1
) -> tuple[str, tuple[tuple[str, int], ...], Fraction]:
    return name, ((dimension, 1),), Fraction(scale)


_GALLON = Fraction(3785411784, 10**12)  # m^3 (US liquid gallon)
_POUND = Fraction(45359237, 10**8)  # kg
_MILE = Fraction(1609344, 1000)  # m
# alias -> (canonical name, dimension, scale in base units). Base units: m, kg, s, USD, EUR.
_UNITS: dict[str, tuple[str, tuple[tuple[str, int], ...], Fraction]] = {}
for _names, _entry in [
    ("mm millimeter millimeters millimetre millimetres", _unit("mm", "length", Fraction(1, 1000))),
    ("cm centimeter centimeters centimetre centimetres", _unit("cm", "length", Fraction(1, 100))),
    ("dm decimeter decimeters", _unit("dm", "length", Fraction(1, 10))),
    ("m meter meters metre metres", _unit("m", "length")),
    ("km kilometer kilometers kilometre kilometres", _unit("km", "length", 1000)),
    ("in inch inches", _unit("in", "length", Fraction(254, 10000))),
    ("ft foot feet", _unit("ft", "length", Fraction(3048, 10000))),
    ("yd yard yards", _unit("yd", "length", Fraction(9144, 10000))),
    ("mi mile miles", _unit("mi", "length", _MILE)),
    ("mg milligram milligrams", _unit("mg", "mass", Fraction(1, 10**6))),
    ("g gram grams gramme grammes", _unit("g", "mass", Fraction(1, 1000))),
    ("kg kilogram kilograms kilo kilos", _unit("kg", "mass")),
    ("lb lbs pound pounds", _unit("lb", "mass", _POUND)),
    ("oz ounce ounces", _unit("oz", "mass", _POUND / 16)),
    ("tonne tonnes", _unit("t", "mass", 1000)),
    ("ms millisecond milliseconds", _unit("ms", "time", Fraction(1, 1000))),
    ("s sec secs second seconds", _unit("s", "time")),
    ("min mins minute minutes", _unit("min", "time", 60)),
    ("h hr hrs hour hours", _unit("h", "time", 3600)),
    ("cms", _unit("cm", "length", Fraction(1, 100))),
    ("kms", _unit("km", "length", 1000)),
    ("kgs", _unit("kg", "mass")),
    ("day days", _unit("day", "time", 86400)),
    ("week weeks", _unit("week", "time", 604800)),
    ("month months", _unit("month", "calendar", Fraction(1, 12))),
    ("yr yrs year years", _unit("year", "calendar")),
    ("decade decades", _unit("decade", "calendar", 10)),
    ("century centuries", _unit("century", "calendar", 100)),
    ("ml milliliter milliliters millilitre millilitres", _unit("mL", "volume", Fraction(1, 10**6))),
    ("l liter liters litre litres", _unit("L", "volume", Fraction(1, 1000))),
    ("gal gallon gallons", _unit("gal", "volume", _GALLON)),
    ("qt quart quarts", _unit("qt", "volume", _GALLON / 4)),
    ("pt pint pints", _unit("pt", "volume", _GALLON / 8)),
    ("cup cups", _unit("cup", "volume", _GALLON / 16)),
    ("tbsp tablespoon tablespoons", _unit("tbsp", "volume", _GALLON / 256)),
    ("tsp teaspoon teaspoons", _unit("tsp", "volume", _GALLON / 768)),
    ("acre acres", _unit("acre", "area", Fraction(40468564224, 10**7))),
    ("hectare hectares ha", _unit("ha", "area", 10000)),
    ("dollar dollars usd buck bucks", _unit("USD", "USD")),
    ("cent cents", _unit("cent", "USD", Fraction(1, 100))),
    ("euro euros eur", _unit("EUR", "EUR")),
    ("yuan rmb cny", _unit("CNY", "CNY")),
    ("yen jpy", _unit("JPY", "JPY")),
    ("rupee rupees inr", _unit("INR", "INR")),
    ("unit units", _unit("unit", "unit")),
    ("rad rads radian radians", _unit("rad", "rad")),
    ("celsius", _unit("°C", "celsius")),
    ("fahrenheit", _unit("°F", "fahrenheit")),
    ("kelvin", _unit("K", "kelvin")),
]:
    for _alias in _names.split():
        _UNITS[_alias] = _entry
# units written as compounds of others
_COMPOUND = {"mph": "mi/h", "kph": "km/h", "kmh": "km/h", "fps": "ft/s", "rpm": None}
# one-letter units: only inside \text{} or after a number with a space, never glued to it
SHORT_UNITS = frozenset({"m", "s", "g", "h", "L", "l"})
_DEGREE_WORDS = {"degree", "degrees", "deg"}
_TEMPERATURE = {
    "c": "celsius",
    "f": "fahrenheit",
    "celsius": "celsius",
    "fahrenheit": "fahrenheit",
    "k": "kelvin",
}

# Words that change or hedge a value: never read as a counted noun (``5 squared``, ``3 million``,
# ``4 or more``). Number words and function names are refused separately.
_NOT_NOUNS = (
    frozenset(
        """or and nor not no but also maybe perhaps possibly probably approximately approx about around roughly
    nearly almost circa more less fewer least most than at to from between except only exactly either neither
    plus minus over divided squared cubed factorial root roots power powers inverse reciprocal percent
    percentage pct per cent dozen dozens score hundreds thousands millions billions trillions is are was were be
    equals equal if then else when where with without unless otherwise wrong incorrect false true correct
    instead answer answers solution solutions yes ignore previous instructions grader mark accept any all none
    each total sum product difference quotient ratio degree degrees radian radians the this that these those
    it its of in on by for""".split()
    )
    | NUMBER_WORDS
)
_RESERVED_WORDS = frozenset(
    """sin cos tan sec csc cot arcsin arccos arctan arcsec arccsc arccot asin acos atan sinh cosh tanh coth sech
    csch exp ln log lg sqrt abs pi inf infty infinity oo""".split()
)


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _phrase_words(text: str) -> list[str] | None:
    """Split a unit phrase into words and the symbols ``/ ^ {digits}``, or None."""
    parts = re.findall(r"[A-Za-z]+|\^\{?\d\}?|\d|/|\.|°|\S", text)
    if not parts or any(re.fullmatch(r"[A-Za-z]+|\^\{?\d\}?|/|\.|°", p) is None for p in parts):
        return None
    return [p for p in parts if p != "."]


def _power(parts: list[str], i: int) -> tuple[int, int]:
    if i < len(parts) and parts[i].startswith("^"):
        return int(parts[i].strip("^{}")), i + 1
    if i < len(parts) and parts[i].lower() in ("squared", "cubed"):
        return (2 if parts[i].lower() == "squared" else 3), i + 1
    return 1, i


def _simple(parts: list[str], i: int) -> tuple[dict[str, int], Fraction, str, int] | None:
    """``square feet``, ``sq ft``, ``cm^2``, ``cubic meters``, ``km``: one unit with its power."""
    prefix = 1
    if i < len(parts) and parts[i].lower() in ("square", "sq", "cubic", "cu"):
        prefix = 3 if parts[i].lower() in ("cubic", "cu") else 2
        i += 1
    if i >= len(parts):
        return None
    key = parts[i].lower()
    compound = _COMPOUND.get(key)
    if compound and prefix == 1:
        top, bottom = compound.split("/")
        t, b = _UNITS[top], _UNITS[bottom]
        dims = {t[1][0][0]: 1}
        dims[b[1][0][0]] = dims.get(b[1][0][0], 0) - 1
        return dims, t[2] / b[2], key, i + 1
    entry = _UNITS.get(key)
    if entry is None:
        return None
    name, ((dim, _),), scale = entry
    power, j = _power(parts, i + 1)
    power *= prefix
    if power != 1 and dim not in ("length", "unit", "time"):
        return None
    return {dim: power}, scale**power, name + (f"^{power}" if power != 1 else ""), j


def parse_unit(text: str) -> Unit | None:
    """A known unit phrase (``km/h``, ``miles per hour``, ``square units``), possibly followed
    by one describing word (``35 years old``), or None."""
    parts = _phrase_words(text)
    if parts is None:
        return None
    first = _simple(parts, 0)
    if first is None:
        return None
    dims, scale, name, i = first
    if i < len(parts) and parts[i].lower() in ("/", "per"):
        second = _simple(parts, i + 1)
        if second is None:
            return None
        for dim, power in second[0].items():
            dims[dim] = dims.get(dim, 0) - power
        scale, name, i = scale / second[1], f"{name}/{second[2]}", second[3]
    if i < len(parts) - 1 or (i == len(parts) - 1 and not _describing(parts[i])):
        return None
    dimension = tuple(sorted((d, p) for d, p in dims.items() if p != 0))
    return Unit(name, dimension, scale)


def _describing(word: str) -> bool:
    return len(word) >= 3 and word.isalpha() and word.islower() and word not in _NOT_NOUNS | _RESERVED_WORDS


_IRREGULAR_PLURALS = frozenset(
    "people children men women feet teeth mice geese sheep fish deer cattle series species aircraft".split()
)


def counted_noun(text: str, one: bool = False) -> Unit | None:
    """``eggs``, ``red apples`` (``apple`` after 1): one or two plain words naming what is
    counted; the last must look like a plural noun, so ``5 nope`` is not ``5``."""
    words = [w.lower() if w.istitle() else w for w in text.split()]
    if not 1 <= len(words) <= 2 or not all(_describing(w) for w in words):
        return None
    last = words[-1]
    if last in _UNITS or last in _COMPOUND:
        return None
    plural = last in _IRREGULAR_PLURALS or (last.endswith("s") and not last.endswith(("ss", "us", "is")))
    if not (plural or one):
        return None
    noun = _singular(last)
    return Unit(noun, ((f"count:{noun}", 1),), Fraction(1))


def _temperature(text: str) -> Unit | None:
    key = _TEMPERATURE.get(text.strip().lower())
    if key is None:
        return None
    name, dimension, scale = _UNITS[key]
    return Unit(name, dimension, scale)


_ITEM_END_OPS = {",", ";", ")", "]", "}", "&", "=", "<", ">", "<=", ">=", "!=", "=<", "=>", "<>", "eof"}
_ITEM_END_CMDS = {
    "}",
    "rangle",
    "\\",
    "end",
    "le",
    "leq",
    "ge",
    "geq",
    "lt",
    "gt",
    "ne",
    "neq",
    "cup",
    "cap",
    "mid",
}
_ITEM_START_OPS = {",", ";", "(", "[", "{", "=", "<", ">", "<=", ">=", "!=", "&"}
_ITEM_START_CMDS = {"{", "\\", "le", "leq", "ge", "geq", "lt", "gt", "ne", "neq", "mid", "boxed", "in"}
_VALUE_END_CMDS = {"pi", "infty", "percent", "degree"}


def _ends_value(tok: Token) -> bool:
    kind, value = tok
    return (
        kind == "num"
        or (kind == "op" and value in (")", "]", "}"))
        or (kind == "cmd" and value in _VALUE_END_CMDS)
    )


def _ends_item(tok: Token) -> bool:
    kind, value = tok
    if kind == "eof":
        return True
    if kind == "op":
        return value in _ITEM_END_OPS
    if kind == "cmd":
        return value in _ITEM_END_CMDS
    return kind == "word" and value in ("or", "and")


# commands that build numbers: anything else alphabetic (a Greek letter, a function) is a variable
_NUMERIC_CMDS = {"frac", "dfrac", "tfrac", "cfrac", "sqrt", "pi", "times", "cdot", "infty", "percent", "degree",
                 "overline", "boxed", "pm", "mp", "div", "ast"}  # fmt: skip


def _item_has_variables(tokens: list[Token]) -> bool:
    """Whether the item that ends the token list names a variable (then ``5 m`` may be 5m)."""
    depth = 0
    for kind, value in reversed(tokens):
        if kind == "op" and value in (")", "]", "}"):
            depth += 1
        elif kind == "op" and value in ("(", "[", "{") and depth:
            depth -= 1
        elif depth == 0 and (
            (kind == "op" and value in _ITEM_START_OPS) or (kind == "cmd" and value in _ITEM_START_CMDS)
        ):
            return False
        elif kind == "word" and value not in ("pi", "e", "i"):
            return True
        elif kind == "cmd" and value.isalpha() and value not in _NUMERIC_CMDS:
            return True
    return False


def _run_end(tokens: list[Token], start: int) -> int:
    """The end of a run of unit-like tokens starting at ``start`` (words, ``^{2}``, ``/``)."""
    j = start
    while j < len(tokens):
        kind, value = tokens[j]
        if kind in ("word", "text") and value not in ("or", "and"):
            j += 1
        elif kind == "op" and value in ("/", "."):
            j += 1
        elif kind == "op" and value == "^":
            if tokens[j + 1 : j + 2] and tokens[j + 1][0] == "num":
                j += 2
            elif tokens[j + 1 : j + 4] and [t[0] for t in tokens[j + 1 : j + 4]] == ["op", "num", "op"]:
                j += 4
            else:
                return j
        else:
            return j
    return j


def _run_text(tokens: list[Token]) -> str:
    """The run as one phrase: ``\\text{cm}^{2}`` is ``cm^2``, ``km / h`` is ``km/h``."""
    out = ""
    for kind, value in tokens:
        if kind in ("word", "text"):
            out += " " + value
        elif kind == "num" or value in ("^", "/"):
            out += value
    return out.strip()


def _read_unit_run(
    tokens: list[Token], start: int, end: int, spaced: bool, variables: bool, one: bool = False
) -> tuple[Unit | None, bool]:
    """(unit, is a degree sign) for the run ``tokens[start:end]`` after a value, or (None, False)."""
    run = tokens[start:end]
    text = _run_text(run).strip()
    if not text:
        return None, False
    words = text.split()
    plain_short = len(run) >= 1 and run[0][0] == "word" and run[0][1] in SHORT_UNITS
    if plain_short and (not spaced or variables):
        return None, False
    if text.lower() in _DEGREE_WORDS:
        return None, True
    if words[0].lower() in _DEGREE_WORDS and len(words) == 2:
        return _temperature(words[1]), False
    unit = parse_unit(text)
    if unit is not None:
        return unit, False
    if not variables and all(kind in ("word", "text") for kind, _ in run):
        return counted_noun(text, one=one), False
    return None, False


def read_units(tokens: list[Token], spaced: list[bool]) -> tuple[list[Token], list[Unit]]:
    """Take the units that close items out of ``tokens``; returns the tokens left and the units
    in order. ``spaced[k]`` says whether token k followed a space (``5 m`` is a length, ``5m``
    a product)."""
    out: list[Token] = []
    units: list[Unit] = []
    padded = tokens + [("eof", "")]
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == ("cmd", "dollar"):  # \$5: the dollar sign names the unit
            if padded[i + 1][0] == "num" or padded[i + 1] == ("op", "-"):
                units.append(Unit(*_UNITS["dollar"]))
            i += 1
            continue
        if out and _ends_value(out[-1]) and tok == ("cmd", "degree") and padded[i + 1][0] in ("word", "text"):
            unit = _temperature(padded[i + 1][1])
            if unit is not None and _ends_item(padded[i + 2]):
                units.append(unit)
                i += 2
                continue
        if out and _ends_value(out[-1]) and tok[0] in ("word", "text"):
            end = _run_end(padded, i)
            if _ends_item(padded[end]):
                variables = _item_has_variables(out)
                one = out[-1] == ("num", "1")
                unit, degree = _read_unit_run(padded, i, end, spaced[i] or tok[0] == "text", variables, one)
                if degree:
                    out.append(("cmd", "degree"))
                    i = end
                    continue
                if unit is not None:
                    units.append(unit)
                    i = end
                    continue
        out.append(tok)
        i += 1
    return out, units
