"""A small RFC 6455 WebSocket client over a raw socket, for SceneSync's reliability suites.

It speaks the protocol correctly by default (masked client frames, whole messages reassembled from
fragments, pings answered) and can also write frames that break it on purpose: unmasked, with
reserved bits or unknown opcodes, fragmented any way, or with a length field that lies. Nothing
here knows about SceneSync's messages beyond `hello`; the suites build those.
"""
import base64
import hashlib
import json
import os
import socket
import struct
import time

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class WebSocketError(Exception):
    """The upgrade was refused, or the server broke the protocol."""


class Closed(Exception):
    """The connection ended: `code` is the close code the server sent, or None if the socket just
    ended (EOF or reset) without a close frame."""

    def __init__(self, code=None, reason=b"", how="close frame"):
        super().__init__(f"closed ({how}, code {code})")
        self.code = code
        self.reason = reason
        self.how = how


def build_frame(opcode, payload=b"", fin=True, mask=True, rsv=0, length=None, mask_key=None,
                length_form=None):
    """The bytes of one frame.

    `rsv` is the three reserved bits (0-7), `length` a payload length to claim instead of the real
    one (a lie), and `length_form` forces the 7-bit, 16-bit or 64-bit length encoding (7, 16 or 64)
    even where a shorter one would do. `opcode` is taken as given, so any 4-bit value can be sent.
    """
    claimed = len(payload) if length is None else length
    first = (0x80 if fin else 0) | ((rsv & 0x7) << 4) | (opcode & 0x0F)
    mask_bit = 0x80 if mask else 0
    form = length_form or (7 if claimed < 126 else 16 if claimed <= 0xFFFF else 64)
    if form == 7:
        head = bytes([first, mask_bit | claimed])
    elif form == 16:
        head = bytes([first, mask_bit | 126]) + struct.pack("!H", claimed)
    else:
        head = bytes([first, mask_bit | 127]) + struct.pack("!Q", claimed)
    if not mask:
        return head + payload
    key = mask_key if mask_key is not None else os.urandom(4)
    return head + key + apply_mask(payload, key)


def apply_mask(payload, key):
    """XORs `payload` with the 4-byte `key`, repeated (masking and unmasking are the same)."""
    if not payload:
        return b""
    repeated = (key * (len(payload) // 4 + 1))[:len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(len(payload), "big")


def close_payload(code, reason=b""):
    return struct.pack("!H", code) + reason


class Frame:
    def __init__(self, fin, rsv, opcode, payload):
        self.fin, self.rsv, self.opcode, self.payload = fin, rsv, opcode, payload

    def __repr__(self):
        return f"Frame(fin={self.fin}, rsv={self.rsv}, opcode={self.opcode:#x}, {len(self.payload)} bytes)"


class WebSocket:
    """One client connection. Not thread-safe: one thread reads and writes it."""

    def __init__(self, sock, leftover=b""):
        self.sock = sock
        self.buffer = bytearray(leftover)
        self.pongs = []          # payloads of pong frames received
        self.closed = None       # the Closed that ended the connection, once it has

    # MARK: - Connecting

    @classmethod
    def connect(cls, port, path, timeout=10.0, source=None, rcvbuf=None):
        """Opens a TCP connection to 127.0.0.1:`port` and upgrades it at `path` with the `Host`
        and `Origin` a page of the server sends. `source` binds the client's end to another local
        address (such as 127.0.0.2); `rcvbuf` sets its receive buffer (SO_RCVBUF) before connecting."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.settimeout(timeout)
        try:
            if source:
                sock.bind((source, 0))
            sock.connect(("127.0.0.1", port))
            authority = f"127.0.0.1:{port}"
            key = base64.b64encode(os.urandom(16)).decode()
            lines = [f"GET {path} HTTP/1.1", f"Host: {authority}", f"Origin: http://{authority}",
                     "Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
                     "Sec-WebSocket-Version: 13"]
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            head, rest = read_http_head(sock, deadline=time.monotonic() + timeout)
            status_line = head.split("\r\n", 1)[0]
            if not status_line.startswith("HTTP/1.1 101"):
                raise WebSocketError(f"upgrade refused: {status_line}")
            expected = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
            headers = {k.strip().lower(): v.strip() for k, _, v in
                       (line.partition(":") for line in head.split("\r\n")[1:])}
            if headers.get("sec-websocket-accept") != expected:
                raise WebSocketError("wrong Sec-WebSocket-Accept")
        except BaseException:
            sock.close()
            raise
        return cls(sock, rest)

    # MARK: - Sending

    def send_raw(self, data):
        """Writes bytes as they are. A reset or broken pipe means the server closed the connection."""
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as error:
            raise Closed(None, how=f"send failed: {error.__class__.__name__}") from None

    def send_frame(self, opcode, payload=b"", **options):
        self.send_raw(build_frame(opcode, payload, **options))

    def send_text(self, text):
        self.send_frame(TEXT, text.encode() if isinstance(text, str) else text)

    def send_json(self, message):
        self.send_text(json.dumps(message, separators=(",", ":")))

    def send_close(self, code=1000, reason=b""):
        self.send_frame(CLOSE, close_payload(code, reason))

    # MARK: - Receiving

    def _fill(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout()
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            self.closed = Closed(None, how="socket ended without a close frame")
            raise self.closed
        self.buffer += chunk

    def recv_frame(self, timeout=10.0):
        """The next frame from the server. Server frames must not be masked.

        Raises `socket.timeout` if none arrives in time, and `Closed` if the socket ends first.
        """
        if self.closed:
            raise self.closed
        deadline = time.monotonic() + timeout
        while True:
            frame, used = parse_frame(self.buffer)
            if frame is not None:
                del self.buffer[:used]
                return frame
            self._fill(deadline)

    def recv_message(self, timeout=10.0):
        """The next whole data message as (opcode, payload), answering pings and noting pongs on
        the way. A close frame from the server is answered and raised as `Closed`."""
        deadline = time.monotonic() + timeout
        parts, first_opcode = [], None
        while True:
            frame = self.recv_frame(max(0.0, deadline - time.monotonic()))
            if frame.opcode == PING:
                self.send_frame(PONG, frame.payload)
            elif frame.opcode == PONG:
                self.pongs.append(frame.payload)
            elif frame.opcode == CLOSE:
                code = struct.unpack("!H", frame.payload[:2])[0] if len(frame.payload) >= 2 else None
                try:
                    self.send_frame(CLOSE, frame.payload[:2])
                except Closed:
                    pass
                self.closed = Closed(code, frame.payload[2:])
                raise self.closed
            else:
                if first_opcode is None:
                    first_opcode = frame.opcode
                parts.append(frame.payload)
                if frame.fin:
                    return first_opcode, b"".join(parts)

    def recv_json(self, timeout=10.0):
        """The next message, decoded from JSON. The protocol is text only."""
        opcode, payload = self.recv_message(timeout)
        if opcode != TEXT:
            raise WebSocketError(f"the server sent a message with opcode {opcode:#x}")
        return json.loads(payload.decode("utf-8"))

    def close(self, code=1000):
        """Sends a close frame if the connection is still open, and closes the socket."""
        if not self.closed:
            try:
                self.send_close(code)
            except (Closed, OSError):
                pass
        self.sock.close()


def parse_frame(buffer):
    """(frame, bytes used) for the first whole frame in `buffer`, or (None, 0) if it is not all
    there. A masked frame from the server is a protocol error."""
    if len(buffer) < 2:
        return None, 0
    first, second = buffer[0], buffer[1]
    if second & 0x80:
        raise WebSocketError("the server sent a masked frame")
    length, offset = second & 0x7F, 2
    if length == 126:
        if len(buffer) < 4:
            return None, 0
        length, offset = struct.unpack("!H", bytes(buffer[2:4]))[0], 4
    elif length == 127:
        if len(buffer) < 10:
            return None, 0
        length, offset = struct.unpack("!Q", bytes(buffer[2:10]))[0], 10
    if len(buffer) < offset + length:
        return None, 0
    frame = Frame(bool(first & 0x80), (first >> 4) & 0x7, first & 0x0F, bytes(buffer[offset:offset + length]))
    return frame, offset + length


def read_http_head(sock, deadline):
    """Reads up to the end of an HTTP response head; returns (head text, bytes after it)."""
    data = b""
    while b"\r\n\r\n" not in data:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout("no response head")
        sock.settimeout(remaining)
        chunk = sock.recv(65536)
        if not chunk:
            raise WebSocketError(f"the connection ended before a response head: {data[:200]!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


def hello(session=None, seq=None, route=None, visible=True, focused=True):
    """A `hello` message as the browser sends it (PROTOCOL.md): `route` only with a session."""
    message = {"type": "hello", "v": 1, "visible": visible, "focused": focused}
    if session:
        message["session"] = session
    if seq:
        message["seq"] = seq
    if route is not None and session:
        message["route"] = route
    return message
