"""What a suite hands back: its figures and the failures that make the run exit non-zero."""


class Result:
    def __init__(self, suite):
        self.suite = suite
        self.figures = {}
        self.failures = []
        self.notes = []
        self.summary = ""

    def fail(self, message):
        self.failures.append(message)
        print(f"  FAIL {self.suite}: {message}", flush=True)

    def note(self, message):
        self.notes.append(message)
        print(f"  note {self.suite}: {message}", flush=True)

    @property
    def ok(self):
        return not self.failures

    def as_json(self):
        return {"ok": self.ok, "summary": self.summary, "figures": self.figures,
                "failures": self.failures, "notes": self.notes}


def n(value):
    """A count with thousands separators: 4,812."""
    return f"{value:,}"


def log(message):
    print(message, flush=True)
