"""The fuzzer's raw material: the seed corpus, mutations of its messages at the JSON level, frames
that break RFC 6455 at the frame level, and what the protocol says each deserves.

Every choice is drawn from the `random.Random` given, so a seed replays the same mutants.
"""
import json
import math
import os
import struct

from wsclient import BINARY, CLOSE, CONTINUATION, PING, PONG, TEXT, build_frame, close_payload

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
MAX_MESSAGE = 64 * 1024       # PROTOCOL.md: larger messages are refused with `tooLarge`
MAX_FRAME = 1 << 20           # PROTOCOL.md: a larger frame closes the connection (1009)
MAX_DEPTH = 8                 # values nested deeper than this may be refused; the protocol has none

# Fields of the window's messages (Tests/Fixtures/Protocol/messages.json) and the type each must have.
MESSAGES = {
    "hello": ({"visible", "focused"}, {"session", "seq", "route", "open", "token"}),
    "action": ({"ref", "node", "name"}, {"value"}),
    "visibility": ({"visible", "focused"}, set()),
    "closing": (set(), set()),
    "ping": (set(), set()),
}
BOOLEANS = {"visible", "focused"}
STRINGS = {"node", "name", "session", "route", "open", "token"}

INTERESTING_NUMBERS = ["1e400", "-1e400", "1e-400", "-0.0", "-0", "0.5", "1.0", "1E2", "-1",
                       "9223372036854775807", "9223372036854775808", "-9223372036854775809",
                       "18446744073709551616", "123456789012345678901234567890", "0e0", "2e308"]
INTERESTING_STRINGS = ["", " ", "Add", "ADD", "add ", "item-", "item-not-a-uuid", "navigationbar", "\u0000",
                       "\ud83d\ude00", "e\u0301\u0301\u0301", "\u202e\u202d", "\uffff", "\\", "\"", "null",
                       "main:items", "main:item/00000000-0000-0000-0000-000000000000", "0" * 32, "g" * 32]
INTERESTING_TEXT = ['\\ud800', '\\udfff', '\\u0000', '\\uD83D\\uDE00', '\\uDE00\\uD83D', '\\x41', '\\\'']
INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                b"\xe2\x82", b"\x80", b"\xf8\x88\x80\x80\x80", b"\xc3"]


class Raw:
    """JSON text written as is: numbers Python cannot hold, duplicate keys, deep nesting."""

    def __init__(self, text):
        self.text = text


def dump(value):
    """JSON text for `value`, where objects are lists of (key, value) pairs so keys may repeat."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, tuple):  # an object: a tuple of pairs
        return "{" + ",".join(json.dumps(k) + ":" + dump(v) for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def pairs(value):
    """A parsed JSON value with objects as tuples of pairs (the form `dump` writes)."""
    if isinstance(value, dict):
        return tuple((k, pairs(v)) for k, v in value.items())
    if isinstance(value, list):
        return [pairs(v) for v in value]
    return value


def load_corpus():
    """(name, message bytes) for every file of the corpus: one message a file, without the
    newline that ends the file."""
    seeds = []
    for name in sorted(os.listdir(CORPUS)):
        if name.endswith(".txt"):
            with open(os.path.join(CORPUS, name), "rb") as f:
                data = f.read()
            seeds.append((name[:-4], data[:-1] if data.endswith(b"\n") else data))
    return seeds


# MARK: - What a message deserves


def classify(payload):
    """What PROTOCOL.md says of `payload` as a text message:

    "malformed"    it does not decode (not JSON, not an object, an unknown or missing type or field,
                   a wrong `v` or field type, duplicate keys, over 64 KiB): an `error` must answer it
                   (an optional field given as `null` counts as left out);
    "valid"        a message the protocol takes (it may still be refused, as an action on no node);
    "unsure"       the protocol does not settle it (a float where an integer goes, a lone surrogate,
                   a value nested deep, a session that is not 32 hex digits): any answer will do;
    "invalid-utf8" not UTF-8, which a text frame may not carry: an error or a close (1007).
    """
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        return "invalid-utf8"
    if len(payload) > MAX_MESSAGE:
        return "malformed"
    duplicate = []

    def no_duplicates(items):
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            duplicate.append(True)
        return dict(items)

    def no_constants(name):
        raise ValueError(name)

    try:
        message = json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constants)
    except RecursionError:
        return "unsure"
    except ValueError:
        return "malformed"
    if duplicate or not isinstance(message, dict):
        return "malformed"
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in MESSAGES or "v" not in message:
        return "malformed"
    verdict = "valid"
    version = message["v"]
    if isinstance(version, bool) or not isinstance(version, (int, float)) or not _finite(version):
        return "malformed"
    if isinstance(version, int) and version != 1:
        return "malformed"
    if isinstance(version, float):
        verdict = "unsure"
    required, optional = MESSAGES[kind]
    fields = set(message) - {"type", "v"}
    if required - fields or fields - required - optional:
        return "malformed"
    for field in fields:
        value = message[field]
        if value is None and field in optional:
            continue  # an optional field given as null is one left out
        if field in BOOLEANS and not isinstance(value, bool):
            return "malformed"
        if field in STRINGS and not isinstance(value, str):
            return "malformed"
        if field == "ref":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
                return "malformed"
            if isinstance(value, float) or not -2**63 <= value < 2**63:
                verdict = "unsure" if isinstance(value, float) else "malformed"
        if field == "seq":
            if not isinstance(value, dict):
                return "malformed"
            verdict = "unsure"
        if field == "session" and not _is_session(value):
            verdict = "unsure"
        if field == "value" and not _plain(value, 0):
            verdict = "unsure"
    if verdict == "valid" and any(_surrogate(s) for s in _strings(message)):
        verdict = "unsure"
    return verdict


def _finite(number):
    return isinstance(number, int) or math.isfinite(number)


def _is_session(value):
    return len(value) == 32 and all(c in "0123456789abcdef" for c in value)


def _plain(value, depth):
    """A value any server takes: not deep, and numbers that are ordinary integers."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, float):
        return False
    if isinstance(value, int) and not isinstance(value, bool):
        return -2**53 <= value <= 2**53
    if isinstance(value, dict):
        return all(_plain(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return all(_plain(v, depth + 1) for v in value)
    return True


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _surrogate(text):
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def names_real_node(payload, real_ids):
    """Whether `payload` names a node the window really has, anywhere: such a mutant could be a
    well-formed intent that changes the list, which the fuzzer must not send. Parsed values are
    checked (escapes decoded, every duplicate key's value), and, for text that does not parse,
    the quoted ids in the raw bytes."""
    try:
        found = []

        def collect(items):
            found.extend(v for _, v in items if isinstance(v, str))
            return dict(items)

        message = json.loads(payload.decode("utf-8"), object_pairs_hook=collect)
        if isinstance(message, str):
            found.append(message)
        return any(value in real_ids for value in found)
    except (ValueError, RecursionError):
        return any(b'"' + node.encode() + b'"' in payload for node in real_ids)


# MARK: - JSON-level mutations


class Mutator:
    def __init__(self, rng, corpus):
        self.rng = rng
        self.corpus = corpus

    def seed(self):
        return self.rng.choice(self.corpus)

    def message(self):
        """(description, payload): a corpus message, mutated one to three times (or, now and
        then, as it is)."""
        name, payload = self.seed()
        if self.rng.random() < 0.15:
            return name, payload
        steps = []
        for _ in range(self.rng.choice((1, 1, 1, 2, 3))):
            step, payload = self.mutate(payload)
            steps.append(step)
        return f"{name} + {' + '.join(steps)}", payload

    def mutate(self, payload):
        rng = self.rng
        try:
            value = pairs(json.loads(payload))
        except (ValueError, UnicodeDecodeError, RecursionError):
            value = None
        structural = [self.swap_type, self.number, self.nest, self.duplicate_key, self.unknown_field,
                      self.drop_field, self.long_string, self.odd_string, self.retype, self.reversion]
        byte_level = [self.flip, self.insert, self.delete, self.repeat, self.truncate, self.invalid_utf8,
                      self.escape, self.wrap]
        if isinstance(value, tuple) and value and rng.random() < 0.65:
            operation = rng.choice(structural)
            return operation.__name__, operation(value).encode("utf-8", "surrogatepass")
        # Invalid UTF-8 ends the connection (1007): rarer, so that connections last.
        operation = rng.choices(byte_level, weights=[3, 3, 3, 3, 3, 1, 3, 3])[0]
        return operation.__name__, operation(payload)

    # Structural: on the parsed message, an object as pairs.

    def _pick(self, value):
        return self.rng.randrange(len(value))

    def _replace(self, value, index, new):
        items = list(value)
        items[index] = (items[index][0], new)
        return dump(tuple(items))

    def random_value(self, depth=0):
        rng = self.rng
        kind = rng.randrange(7 if depth < 2 else 5)
        if kind == 0:
            return Raw(rng.choice(INTERESTING_NUMBERS))
        if kind == 1:
            return rng.choice(INTERESTING_STRINGS)
        if kind == 2:
            return rng.choice([True, False])
        if kind == 3:
            return None
        if kind == 4:
            return rng.randint(-2**31, 2**31)
        if kind == 5:
            return [self.random_value(depth + 1) for _ in range(rng.randrange(4))]
        return tuple((rng.choice(["type", "v", "x", "node", ""]), self.random_value(depth + 1))
                     for _ in range(rng.randrange(3)))

    def swap_type(self, value):
        return self._replace(value, self._pick(value), self.random_value())

    def number(self, value):
        return self._replace(value, self._pick(value), Raw(self.rng.choice(INTERESTING_NUMBERS)))

    def nest(self, value):
        depth = self.rng.choice([3, 9, 64, 1000, 20000])
        opener, closer = self.rng.choice([("[", "]"), ('{"a":', "}")])
        return self._replace(value, self._pick(value), Raw(opener * depth + "1" + closer * depth))

    def duplicate_key(self, value):
        key, _ = value[self._pick(value)]
        return dump(value + ((key, self.random_value()),))

    def unknown_field(self, value):
        key = self.rng.choice(["zoom", "Type", "type ", "V", "", "ref", "value", "seq", "\u0000"])
        return dump(value + ((key, self.random_value()),))

    def drop_field(self, value):
        index = self._pick(value)
        return dump(value[:index] + value[index + 1:])

    def long_string(self, value):
        length = self.rng.choice([1_000, 30_000, MAX_MESSAGE - 60, MAX_MESSAGE + 10, 200_000])
        return self._replace(value, self._pick(value), self.rng.choice("AÅ😀") * length)

    def odd_string(self, value):
        return self._replace(value, self._pick(value), Raw('"' + self.rng.choice(INTERESTING_TEXT) + '"'))

    def retype(self, value):
        kind = self.rng.choice(list(MESSAGES) + ["welcome", "ack", "pong", "", "PING", "hello\u0000"])
        items = [(k, kind if k == "type" else v) for k, v in value]
        return dump(tuple(items))

    def reversion(self, value):
        version = self.rng.choice([Raw("0"), Raw("2"), "1", Raw("1.0"), None, True, Raw("-1"), Raw("1e0")])
        return dump(tuple((k, version if k == "v" else v) for k, v in value))

    # Byte-level: on the text as bytes.

    def flip(self, payload):
        """Flips low bits only: ASCII stays ASCII (invalid UTF-8 is a mutation of its own)."""
        data = bytearray(payload)
        for _ in range(self.rng.randint(1, 3)):
            if data:
                data[self.rng.randrange(len(data))] ^= 1 << self.rng.randrange(7)
        return bytes(data)

    def insert(self, payload):
        at = self.rng.randint(0, len(payload))
        extra = self.rng.choice([b"{", b"}", b"[", b"]", b'"', b":", b",", b"\\", b"\x00", b"\x7f", b"-",
                                 b"0", b"e", b" ", b"\n", bytes([self.rng.randrange(256)])])
        return payload[:at] + extra + payload[at:]

    def delete(self, payload):
        if not payload:
            return payload
        at = self.rng.randrange(len(payload))
        return payload[:at] + payload[at + self.rng.randint(1, 8):]

    def repeat(self, payload):
        if not payload:
            return payload
        start = self.rng.randrange(len(payload))
        chunk = payload[start:start + self.rng.randint(1, 16)]
        return payload[:start] + chunk * self.rng.randint(2, 50) + payload[start:]

    def truncate(self, payload):
        return payload[:self.rng.randint(0, max(0, len(payload) - 1))]

    def invalid_utf8(self, payload):
        at = self.rng.randint(0, len(payload))
        return payload[:at] + self.rng.choice(INVALID_UTF8) + payload[at:]

    def escape(self, payload):
        quote = payload.find(b'"', self.rng.randint(0, max(0, len(payload) - 1)))
        at = quote + 1 if quote >= 0 else 0
        return payload[:at] + self.rng.choice(INTERESTING_TEXT).encode() + payload[at:]

    def wrap(self, payload):
        return self.rng.choice([b"\xef\xbb\xbf" + payload, payload + payload, b"[" + payload + b"]",
                                payload + b" x", b" \t\r\n" + payload, b"null", b"", b'"' + payload + b'"'])


# MARK: - Frame-level cases


class FrameCase:
    """Frames to write as they are, and what the server owes for them:

    "close"   the protocol is broken: the server must close with a code (RFC 6455 section 5/7);
    "either"  RFC 6455 does not oblige the server to close (non-minimal lengths): anything goes;
    "echo"    a ping: a pong with the same payload;
    "nothing" an unsolicited pong: ignored;
    "ends"    a close frame from us: the connection ends (the server's close code is recorded);
    "stuck"   the length lies: the server may wait for bytes that never come, or read what
              follows as a frame of its own; only its staying up is checked.
    """

    def __init__(self, name, data, expect, frames=1, payload=b""):
        self.name, self.data, self.expect, self.frames, self.payload = name, data, expect, frames, payload


def frame_case(rng, message):
    """A frame-level case, built around `message` (a valid message's text) where one is needed."""
    kind = rng.randrange(14)
    if kind == 0:
        return FrameCase("unmasked text frame", build_frame(TEXT, message, mask=False), "close")
    if kind == 1:
        return FrameCase("binary frame", build_frame(BINARY, message), "close")
    if kind == 2:
        rsv = rng.randint(1, 7)
        return FrameCase(f"reserved bits {rsv:03b}", build_frame(TEXT, message, rsv=rsv), "close")
    if kind == 3:
        opcode = rng.choice([3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF])
        return FrameCase(f"opcode {opcode:#x}", build_frame(opcode, message[:rng.randrange(126)]), "close")
    if kind == 4:
        return FrameCase("continuation with no message begun", build_frame(CONTINUATION, message), "close")
    if kind == 5:
        cut = rng.randint(1, max(1, len(message) - 1))
        data = build_frame(TEXT, message[:cut], fin=False) + build_frame(TEXT, message[cut:])
        return FrameCase("new text frame inside a fragmented message", data, "close", frames=2)
    if kind == 6:
        control = rng.choice([PING, PONG, CLOSE])
        payload = close_payload(1000, b"x" * 130) if control == CLOSE else rng.randbytes(rng.randint(126, 400))
        return FrameCase(f"control frame {control:#x} of {len(payload)} bytes", build_frame(control, payload), "close")
    if kind == 7:
        return FrameCase("fragmented ping", build_frame(PING, b"a", fin=False) + build_frame(CONTINUATION, b"b"),
                         "close", frames=2)
    if kind == 8:
        claimed = rng.choice([MAX_FRAME + 1, 1 << 32, (1 << 63) - 1, 1 << 63, (1 << 64) - 1])
        # The header alone: the server must refuse it from the length, without waiting for bytes.
        head = build_frame(TEXT, b"", length=claimed, length_form=64)
        return FrameCase(f"length {claimed}", head, "close")
    if kind == 9:
        form = rng.choice([16, 64])
        return FrameCase(f"{form}-bit length for {len(message)} bytes", build_frame(TEXT, message, length_form=form),
                         "either")
    if kind == 10:
        payload = rng.randbytes(rng.randint(0, 125))
        return FrameCase("ping with junk", build_frame(PING, payload), "echo", payload=payload)
    if kind == 11:
        return FrameCase("unsolicited pong with junk", build_frame(PONG, rng.randbytes(rng.randint(0, 125))), "nothing")
    if kind == 12:
        payload = rng.choice([
            b"", b"\x03", close_payload(1000, b"bye"), close_payload(rng.choice([1001, 3000, 4999])),
            close_payload(rng.choice([0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535])),
            close_payload(1000, rng.choice(INVALID_UTF8)), rng.randbytes(rng.randint(1, 123))])
        return FrameCase(f"close frame {payload[:8].hex()}", build_frame(CLOSE, payload), "ends")
    lie = rng.choice([-5, -1, 1, 100, 5000])
    claimed = max(0, len(message) + lie)
    return FrameCase(f"length lies by {lie:+d}", build_frame(TEXT, message, length=claimed), "stuck")


def split(payload, rng):
    """`payload` cut at random places (possibly inside a UTF-8 character) into 2-5 pieces."""
    cuts = sorted(rng.sample(range(1, len(payload)), min(len(payload) - 1, rng.randint(1, 4)))) if len(payload) > 1 else []
    bounds = [0] + cuts + [len(payload)]
    return [payload[a:b] for a, b in zip(bounds, bounds[1:])]


def fragmented(payload, rng):
    """The frames of `payload` sent as a fragmented text message, with pings between fragments now
    and then (allowed: control frames may come between fragments). Returns (bytes, frames, pings)."""
    pieces = split(payload, rng) or [b""]
    data, frames, pings = b"", 0, []
    for index, piece in enumerate(pieces):
        opcode = TEXT if index == 0 else CONTINUATION
        data += build_frame(opcode, piece, fin=index == len(pieces) - 1)
        frames += 1
        if index < len(pieces) - 1 and rng.random() < 0.3:
            ping = struct.pack("!I", rng.getrandbits(32))
            data += build_frame(PING, ping)
            frames += 1
            pings.append(ping)
    return data, frames, pings
