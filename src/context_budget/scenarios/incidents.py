"""The incident-report task: 24 reports, one question, and the tools to answer it.

An agent must find which service had the most downtime across 24 incident
reports (about 45,000 tokens by `estimate_tokens`), how many minutes that was,
and what usually caused it. It starts with the task and three tools: it lists
the files, reads them one at a time, and saves a short note per report.

The reports are built by pure construction from a fixed table plus a fixed-seed
`random.Random` for the noise (log lines, metrics, people, chatter), so they
are identical on every run and platform. Ground truth: auth, 760 minutes over 7
incidents, 565 of them from database failover; the runner-up, payments, has 410
minutes, although payments also has the single longest incident (230 minutes).

Every report opens with the line `INCIDENT REPORT INC-1001` (its id) and closes
with `END OF REPORT INC-1001`; between them the header fields `Service:`,
`Downtime: N minutes` and `Cause category:` state the facts, and a UTC timeline
runs from `Outage began` to `Service restored`, N minutes apart.

Shapes: `reports()` -> `{report id: text}` in id order; `FILES` -> the file
names `list_files` shows (`"INC-1001.md"` ...); `TOOLS` -> tool definitions in
the Anthropic Messages API shape; `tool_impls(notes)` -> `{tool name: function}`.

Examples:
    >>> texts = reports()
    >>> len(texts), FILES[0], texts["INC-1001"].splitlines()[0]
    (24, 'INC-1001.md', 'INCIDENT REPORT INC-1001')
    >>> GROUND_TRUTH
    GroundTruth(service='auth', minutes=760, cause='database failover')
    >>> notes: list[str] = []
    >>> impls = tool_impls(notes)
    >>> impls["save_note"](note="INC-1007: auth, 42 min, bad deploy")
    'Note kept: 1 on file.'
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

__all__ = [
    "FILES",
    "GROUND_TRUTH",
    "SYSTEM",
    "SYSTEM_NO_NOTES",
    "TASK",
    "TOOLS",
    "TOOLS_NO_NOTES",
    "GroundTruth",
    "is_correct",
    "reports",
    "run_tool",
    "tool_impls",
]


class GroundTruth(NamedTuple):
    """The right answer: the service down longest, its total, and its main cause.

    Attributes:
        service: the service's name, as the reports' `Service:` field spells it.
        minutes: its downtime summed over every report, in minutes.
        cause: the cause category behind most of those minutes.
    """

    service: str
    minutes: int
    cause: str


#: The question, as the agent's first user message.
TASK = (
    "You have access to our incident reports from the first half of 2026. "
    "Across all of them, which service was down the longest in total? "
    "Give that service, its total downtime in minutes, and the cause behind "
    "most of its downtime."
)

#: The standing brief every request carries: the catalogue and the counting rules.
#: Short, unchanging and needed on every call, it sits in the system prompt,
#: ahead of everything that changes (600 to 800 tokens by `estimate_tokens`).
BRIEF = """\
Reporting brief for incident reviews, first half of 2026 (edition 3).

Services in scope, with their owners and tiers:
- auth: login, token issuing and sessions. Owner: Identity team. Tier 1.
- payments: card capture, refunds and the ledger. Owner: Money team. Tier 1.
- checkout: cart, order placement and the order database. Owner: Storefront. Tier 1.
- search: product search and the query router. Owner: Discovery team. Tier 2.
- notifications: push, e-mail and the message queue. Owner: Messaging. Tier 2.
- inventory: stock levels and the warehouse feed. Owner: Supply team. Tier 2.
Use these names exactly as written, in lower case, even where a report says
"Auth API", "the payments stack" or a component name such as token-svc.

How to count downtime:
- The figure that counts is the one on the report's Downtime line. It runs
  from "Outage began" to "Service restored" on the timeline; time spent on
  follow-ups, monitoring or the postmortem is not downtime.
- Partial outages count in full if the report gives them a Downtime line.
- A report covers one incident. Never split one report's minutes between
  services, and never count a report twice, even if you open it again.
- When you total a service, add the Downtime figures of every report whose
  Service line names it. Do not round until the final answer.

How to name a cause:
- Use the report's Cause category line, word for word (for example
  "database failover", "bad deploy", "expired certificate"). The narrative
  may mention other contributing factors; they do not change the category.
- The cause behind most of a service's downtime is the category whose
  reports add up to the most minutes for that service, not the category
  that appears most often.

What the answer must contain:
- The service with the most downtime in total, its total in minutes and
  the number of incidents behind it.
- The cause category behind most of those minutes, with its own minutes.
- The runner-up service and its total, so a reader can see the margin.
- Anything you could not check yourself: a report you could not open, a
  figure you took from a summary instead of the report, a report you had
  to read twice. Say it plainly; a reader will re-check those.

Working rules:
- Reports are long and mostly timeline, logs and chatter. The header lines
  (Service, Downtime, Cause category) hold what this review needs.
- Keep your replies short between tool calls: a sentence on what you are
  doing is enough. Do not restate report contents in your replies.
- If a tool returns an error, say so in your next reply and try once more
  before you move on. Never guess a figure you have not seen.
- Confidential: reports name on-call engineers. Do not quote people's names
  in the answer.
"""

#: The system prompt with note-taking: the job, the note format, then `BRIEF`.
SYSTEM = (
    "You are an operations analyst. The incident reports are files: call "
    "list_files to see them and read_file to open one. Read only what you "
    "need, a report or two at a time. As soon as you have read a report, call "
    "save_note with one short line for it: id, service, minutes of downtime "
    "and cause, for example 'INC-1007: auth, 42 min, bad deploy'. Your notes "
    "are kept outside this conversation. Answer once every report is covered."
    "\n\n" + BRIEF
)

#: The system prompt of the no-notes variant: same job and `BRIEF`, no note-taking.
SYSTEM_NO_NOTES = (
    "You are an operations analyst. The incident reports are files: call "
    "list_files to see them and read_file to open one. Read only what you "
    "need, a report or two at a time. Answer once every report is covered."
    "\n\n" + BRIEF
)

_LIST_FILES = {
    "name": "list_files",
    "description": "List the incident report files, one name per line.",
    "input_schema": {"type": "object", "properties": {}},
}
_READ_FILE = {
    "name": "read_file",
    "description": "Return the full text of one incident report.",
    "input_schema": {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "a file name from list_files"}},
        "required": ["path"],
    },
}
_SAVE_NOTE = {
    "name": "save_note",
    "description": "Keep a one-line note outside the conversation; returns the note count.",
    "input_schema": {
        "type": "object",
        "properties": {"note": {"type": "string", "description": "one short line"}},
        "required": ["note"],
    },
}

#: The three tools, in the Anthropic Messages API shape (`name`,
#: `description`, `input_schema`). Treat as read-only: copy before changing.
TOOLS: list[dict[str, Any]] = [_LIST_FILES, _READ_FILE, _SAVE_NOTE]

#: The no-notes variant: `TOOLS` without `save_note`.
TOOLS_NO_NOTES: list[dict[str, Any]] = [_LIST_FILES, _READ_FILE]

# (service, minutes, cause category), in report order (INC-1001 first). Auth:
# 180+150+85+140+60+95+50 = 760, failover 180+150+140+95 = 565.
_TABLE: tuple[tuple[str, int, str], ...] = (
    ("payments", 60, "bad deploy"),
    ("auth", 180, "database failover"),
    ("search", 110, "index corruption"),
    ("checkout", 100, "bad deploy"),
    ("notifications", 75, "queue backlog"),
    ("auth", 85, "bad deploy"),
    ("payments", 230, "third-party outage"),
    ("inventory", 70, "disk full"),
    ("auth", 150, "database failover"),
    ("search", 90, "memory leak"),
    ("notifications", 55, "DNS misconfiguration"),
    ("payments", 50, "database failover"),
    ("auth", 60, "expired certificate"),
    ("checkout", 65, "expired certificate"),
    ("search", 60, "bad deploy"),
    ("auth", 140, "database failover"),
    ("payments", 40, "rate limiter misconfiguration"),
    ("inventory", 40, "network partition"),
    ("notifications", 35, "bad deploy"),
    ("auth", 95, "database failover"),
    ("checkout", 45, "cache stampede"),
    ("search", 40, "disk full"),
    ("payments", 30, "bad deploy"),
    ("auth", 50, "connection pool exhaustion"),
)

_FIRST_ID = 1001
_SEED = 20260301

#: The file names `list_files` shows, in id order.
FILES: tuple[str, ...] = tuple(f"INC-{_FIRST_ID + i}.md" for i in range(len(_TABLE)))


def _ground_truth() -> GroundTruth:
    totals: dict[str, int] = {}
    for service, minutes, _ in _TABLE:
        totals[service] = totals.get(service, 0) + minutes
    service = max(totals, key=lambda name: totals[name])
    causes: dict[str, int] = {}
    for name, minutes, cause in _TABLE:
        if name == service:
            causes[cause] = causes.get(cause, 0) + minutes
    return GroundTruth(service, totals[service], max(causes, key=lambda name: causes[name]))


#: The right answer, computed from the table the reports are built from.
GROUND_TRUTH = _ground_truth()

_PEOPLE = (
    "Priya Raman",
    "Tomás Ferreira",
    "Aiko Tanaka",
    "Dmitri Volkov",
    "Grace Okafor",
    "Lena Schmidt",
    "Marcus Bell",
    "Noor Haddad",
    "Sven Lindqvist",
    "Chloé Martin",
    "Rafael Ortiz",
    "Zainab Yusuf",
)

# service -> (component names in its logs, its main dependency)
_SERVICES: dict[str, tuple[tuple[str, ...], str]] = {
    "auth": (("auth-api", "token-svc", "session-store"), "the users database cluster"),
    "payments": (("pay-api", "ledger-worker", "psp-adapter"), "the payment provider"),
    "search": (("search-api", "indexer", "query-router"), "the search index"),
    "checkout": (("checkout-web", "cart-svc", "order-api"), "the order database"),
    "notifications": (("notify-api", "push-worker", "mailer"), "the message queue"),
    "inventory": (("stock-api", "sync-worker", "warehouse-feed"), "the stock database"),
}

# cause -> (what went wrong, in one sentence; the fix; log messages seen)
_CAUSES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "database failover": (
        "The primary database node lost its quorum and the cluster promoted a "
        "replica, but clients kept connections to the old primary until they "
        "were recycled by hand.",
        "restarted the connection pools so clients picked up the new primary",
        (
            "connection refused by primary db-{n}",
            "read-only transaction rejected: node is in recovery",
            "failover in progress, retrying in {ms} ms",
        ),
    ),
    "bad deploy": (
        "A release shipped a configuration change that passed the canary but "
        "broke requests once it reached every instance.",
        "rolled back to the previous release",
        (
            "unhandled exception in handler v{n}",
            "config key missing: feature.{word}",
            "health check failed after deploy {hex}",
        ),
    ),
    "expired certificate": (
        "A TLS certificate on an internal endpoint expired over the weekend; "
        "the renewal job had been failing quietly for two weeks.",
        "issued a new certificate and fixed the renewal job's credentials",
        (
            "x509: certificate has expired or is not yet valid",
            "TLS handshake failed with upstream {word}",
            "renewal job exited with status {n}",
        ),
    ),
    "third-party outage": (
        "The external provider had a regional outage and every call to it "
        "timed out; our fallback path was disabled by an old flag.",
        "switched traffic to the secondary provider and re-enabled the fallback",
        (
            "upstream timeout after {ms} ms",
            "provider returned 503 for request {hex}",
            "circuit breaker open for {word}",
        ),
    ),
    "index corruption": (
        "A partial write during compaction left index segments unreadable, and "
        "queries that touched them failed.",
        "rebuilt the affected shards from the last snapshot",
        (
            "segment checksum mismatch in shard {n}",
            "query failed: corrupt segment {hex}",
            "shard {n} marked unassigned",
        ),
    ),
    "memory leak": (
        "A cache of parsed queries grew without bound and the pods were killed "
        "for running out of memory, faster than they could restart.",
        "capped the cache and rolled out a patched build",
        (
            "container killed: out of memory (limit {n} Mi)",
            "heap usage {n}% after GC",
            "restart count now {n}",
        ),
    ),
    "queue backlog": (
        "A consumer stopped acknowledging messages, the queue filled, and "
        "producers started rejecting new work.",
        "restarted the stuck consumers and drained the backlog",
        (
            "queue depth {n} above threshold",
            "publish rejected: queue full",
            "consumer {word} lagging by {n} s",
        ),
    ),
    "DNS misconfiguration": (
        "A DNS record was changed during a migration and pointed at a load "
        "balancer that had already been retired.",
        "restored the old record and lowered its TTL",
        (
            "lookup {word}.internal: no such host",
            "dial tcp: i/o timeout resolving {word}",
            "resolver returned NXDOMAIN for {word}",
        ),
    ),
    "disk full": (
        "Log files filled the data volume after log rotation was disabled in a "
        "maintenance window and never turned back on.",
        "cleared old logs and re-enabled rotation",
        (
            "write failed: no space left on device",
            "volume /data at {n}% capacity",
            "compaction aborted: insufficient disk",
        ),
    ),
    "rate limiter misconfiguration": (
        "A new rate-limit rule was keyed on the wrong header, so every request "
        "shared one bucket and most were rejected.",
        "reverted the rule and added a test for its key",
        (
            "429 returned for client {hex}",
            "rate bucket {word} exhausted",
            "limiter rule {n} matched all traffic",
        ),
    ),
    "network partition": (
        "A switch firmware update split one availability zone from the others "
        "and the service lost its quorum.",
        "rolled back the firmware and rejoined the zone",
        (
            "peer {word} unreachable",
            "raft: lost leader, term {n}",
            "packet loss {n}% to zone b",
        ),
    ),
    "cache stampede": (
        "A cache flush during a deploy sent every request to the database at "
        "once, and it fell over under the load.",
        "warmed the cache from a replica and added request coalescing",
        (
            "cache miss rate {n}%",
            "db connections at limit ({n})",
            "request coalescing disabled for {word}",
        ),
    ),
    "connection pool exhaustion": (
        "A slow query held connections open until the pool ran dry and new "
        "logins waited until they timed out.",
        "killed the slow query and raised the pool's timeout alarm",
        (
            "pool exhausted: {n} of {n} connections busy",
            "waited {ms} ms for a connection",
            "slow query {hex} running for {n} s",
        ),
    ),
}

_WORDS = ("alpha", "brisk", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "iris")
_LEVELS = ("INFO", "WARN", "ERROR", "ERROR")
# (metric, unit, lowest value, highest value)
_METRICS = (
    ("p99 latency", " ms", 80, 4000),
    ("error rate", "%", 0, 65),
    ("requests", " per s", 200, 9000),
    ("CPU", "%", 10, 99),
    ("open connections", "", 50, 2000),
)
_CHATTER = (
    "unrelated, but the coffee machine on floor 3 is fixed",
    "can someone review my PR for the dashboard colours later?",
    "reminder: the team offsite is on Thursday, bring a laptop charger",
    "is anyone else seeing the VPN drop every hour?",
    "who moved the on-call calendar? it shows last month",
    "lunch order closes at 11:30",
    "the staging cluster is being rebuilt tonight, expect noise",
    "happy birthday Marcus! cake in the kitchen",
)
_FOLLOW_UPS = (
    "add an alert on {what} so we hear about it before customers do",
    "write a runbook section for {what}",
    "add a game-day exercise that rehearses {what}",
    "review dashboards: the graph for {what} was missing",
    "make the status page update automatic for {what}",
)


def _clock(minute_of_day: int) -> str:
    return f"{minute_of_day // 60:02}:{minute_of_day % 60:02}"


def _fill(template: str, rng: random.Random) -> str:
    return template.format(
        n=rng.randint(2, 97),
        ms=rng.choice((250, 500, 1000, 2000, 5000)),
        word=rng.choice(_WORDS),
        hex=f"{rng.getrandbits(32):08x}",
    )


class _Incident(NamedTuple):
    """What one report is about, drawn before its text is written."""

    report_id: str
    service: str
    minutes: int
    cause: str
    date: str
    start: int  # minute of the day the outage began (UTC)
    commander: str
    scribe: str
    responders: list[str]


def _report(index: int, rng: random.Random) -> str:
    """The text of one report: header, summary, timeline, logs, metrics, follow-ups, chat.

    Each part draws from `rng` in turn, in the order written.
    """
    service, minutes, cause = _TABLE[index]
    month, day = 1 + index // 4, 3 + (index % 4) * 7 + rng.randint(0, 3)
    start = rng.randint(1 * 60, 20 * 60)
    commander, scribe, *responders = rng.sample(_PEOPLE, 5)
    incident = _Incident(
        f"INC-{_FIRST_ID + index}",
        service,
        minutes,
        cause,
        f"2026-{month:02}-{day:02}",
        start,
        commander,
        scribe,
        responders,
    )
    lines = [
        *_header(incident),
        *_timeline(incident, rng),
        *_log_excerpt(incident, rng),
        *_metrics(incident, rng),
        *_follow_ups(incident, rng),
        *_channel(incident, rng),
        "",
        f"END OF REPORT {incident.report_id}",
    ]
    return "\n".join(lines)


def _header(incident: _Incident) -> list[str]:
    """The report's header and its summary."""
    service, minutes = incident.service, incident.minutes
    what, fix, _ = _CAUSES[incident.cause]
    severity = "SEV-1" if minutes >= 120 else "SEV-2" if minutes >= 60 else "SEV-3"
    return [
        f"INCIDENT REPORT {incident.report_id}",
        f"Service: {service}",
        f"Date: {incident.date}",
        f"Severity: {severity}",
        f"Downtime: {minutes} minutes",
        f"Cause category: {incident.cause}",
        f"Incident commander: {incident.commander}",
        f"Scribe: {incident.scribe}",
        f"Responders: {', '.join(incident.responders)}",
        "",
        "## Summary",
        f"{service} was unavailable to customers for {minutes} minutes. {what} "
        f"The team {fix}. The main dependency involved was {_SERVICES[service][1]}.",
    ]


def _timeline(incident: _Incident, rng: random.Random) -> list[str]:
    """The timeline, from the outage to the incident's close."""
    components, dependency = _SERVICES[incident.service]
    fix = _CAUSES[incident.cause][1]
    start, end = incident.start, incident.start + incident.minutes
    lines = [
        "",
        "## Timeline (UTC)",
        f"{_clock(start)}  Outage began: error rate on {components[0]} above 50%",
    ]
    detect = start + rng.randint(1, 4)
    lines.append(f"{_clock(detect)}  Pager alert fired; {incident.commander} acknowledged")
    steps = sorted(rng.sample(range(detect + 1, end), min(4, end - detect - 1)))
    step_text = (
        "first responders joined the bridge",
        f"checked recent changes to {components[1]}",
        f"suspected {dependency}; {incident.responders[0]} pulled its logs",
        f"decided to act: the team {fix}",
    )
    for at, text in zip(steps, step_text, strict=False):
        lines.append(f"{_clock(at)}  {text}")
    lines.append(f"{_clock(end)}  Service restored: {components[0]} error rate back under 1%")
    lines.append(f"{_clock(min(end + 30, 24 * 60 - 1))}  Monitoring ended; incident closed")
    return lines


def _log_excerpt(incident: _Incident, rng: random.Random) -> list[str]:
    """Log lines from within the outage, in time order."""
    components = _SERVICES[incident.service][0]
    log_templates = _CAUSES[incident.cause][2]
    start, end = incident.start, incident.start + incident.minutes
    logged = []  # (second of the day, line)
    for _ in range(rng.randint(49, 61)):
        second = rng.randint(start * 60, end * 60 - 1)
        stamp = f"{incident.date}T{_clock(second // 60)}:{second % 60:02}.{rng.randint(0, 999):03}Z"
        message = _fill(rng.choice(log_templates), rng)
        line = (
            f"{stamp} {rng.choice(_LEVELS):5} {rng.choice(components)} "
            f"[req={rng.getrandbits(48):012x}] {message}"
        )
        logged.append((second, line))
    return ["", "## Log excerpt", *[line for _, line in sorted(logged)]]


def _metrics(incident: _Incident, rng: random.Random) -> list[str]:
    """A table of metrics read through the outage."""
    lines = ["", "## Metrics", "| time | metric | value |", "|---|---|---|"]
    for k in range(rng.randint(14, 18)):
        name, unit, low, high = _METRICS[k % len(_METRICS)]
        at = min(incident.start + (k * incident.minutes) // 10, 24 * 60 - 1)
        lines.append(f"| {_clock(at)} | {name} | {rng.randint(low, high)}{unit} |")
    return lines


def _follow_ups(incident: _Incident, rng: random.Random) -> list[str]:
    """Three follow-up tickets, the first with a done sub-task."""
    lines = ["", "## Follow-ups"]
    for k, template in enumerate(rng.sample(_FOLLOW_UPS, 3)):
        owner = rng.choice(_PEOPLE)
        ticket = f"OPS-{rng.randint(4000, 4999)}"
        lines.append(f"- [ ] {ticket} ({owner}): {template.format(what=incident.cause)}")
        if k == 0:
            lines.append(
                f"- [x] {ticket}-a ({incident.commander}): post the timeline in #incidents"
            )
    return lines


def _channel(incident: _Incident, rng: random.Random) -> list[str]:
    """A few lines of the team's chat."""
    lines = ["", "## Channel excerpt"]
    for _ in range(rng.randint(5, 8)):
        who = rng.choice(_PEOPLE).split()[0].lower()
        chatter = rng.random() < 0.5  # subtle: each branch draws from `rng` differently
        said = rng.choice(_CHATTER) if chatter else f"{incident.service} looks {_mood(rng)}"
        lines.append(f"<{who}> {said}")
    return lines


def _mood(rng: random.Random) -> str:
    return rng.choice(("stable now", "still flaky", "green on my side", "slow but up"))


@functools.cache
def _texts() -> tuple[str, ...]:
    rng = random.Random(_SEED)
    return tuple(_report(index, rng) for index in range(len(_TABLE)))


def reports() -> dict[str, str]:
    """Every report's text, by id: a new dict on every call.

    Returns:
        `{"INC-1001": text, ..., "INC-1024": text}` in id order; about 45,000
        tokens in all by `estimate_tokens`.
    """
    return {name.removesuffix(".md"): text for name, text in zip(FILES, _texts(), strict=True)}


def _report_id(path: object) -> str:
    if not isinstance(path, str):
        raise TypeError(f"path must be a str, got {type(path).__name__}")
    name = path.strip().removeprefix("./")
    for candidate in (name, f"{name}.md"):
        if candidate in FILES:
            return candidate.removesuffix(".md")
    raise ValueError(f"no file named {path!r}; list_files shows {len(FILES)} reports")


def tool_impls(notes: list[str], *, with_notes: bool = True) -> dict[str, Callable[..., str]]:
    """The tools' implementations, as plain functions over one run's notes.

    Args:
        notes: the run's notes, oldest first; `save_note` appends to it (it
            is the one list the tools change).
        with_notes: False for the no-notes variant, which has no `save_note`.

    Returns:
        `{tool name: function}`; each function takes the tool's input as
        keyword arguments and returns the result's text: `list_files()` the
        names in `FILES`, one a line; `read_file(path)` a report's text
        (`path` a listed name, `.md` optional); `save_note(note)` the count,
        `"Note kept: N on file."`. A bad input (an unknown file, a missing
        or empty argument) raises `ValueError` or `TypeError` with a message
        fit to show the model (`run_tool` turns it into an error result).
    """
    if not isinstance(notes, list):
        raise TypeError(f"notes must be a list of str, got {type(notes).__name__}")
    texts = reports()

    def list_files() -> str:
        return "\n".join(FILES)

    def read_file(path: str) -> str:
        return texts[_report_id(path)]

    def save_note(note: str) -> str:
        if not isinstance(note, str):
            raise TypeError(f"note must be a str, got {type(note).__name__}")
        if not note.strip():
            raise ValueError("note is empty; write one line such as 'INC-1007: auth, 42 min'")
        notes.append(note.strip())
        return f"Note kept: {len(notes)} on file."

    impls: dict[str, Callable[..., str]] = {"list_files": list_files, "read_file": read_file}
    if with_notes:
        impls["save_note"] = save_note
    return impls


def run_tool(
    tool_use: Mapping[str, Any], impls: Mapping[str, Callable[..., str]]
) -> dict[str, Any]:
    """Answer one `tool_use` block with its `tool_result` block.

    Args:
        tool_use: `{"type": "tool_use", "id": str, "name": str, "input": dict}`.
        impls: the functions from `tool_impls`.

    Returns:
        `{"type": "tool_result", "tool_use_id": id, "content": text}`, plus
        `"is_error": True` when the tool is unknown or its input is bad (the
        content then says what was wrong).

    Examples:
        >>> impls = tool_impls([])
        >>> use = {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "x"}}
        >>> run_tool(use, impls)["is_error"]
        True
    """
    if not isinstance(tool_use, Mapping) or tool_use.get("type") != "tool_use":
        raise TypeError(f"expected a tool_use block, got {tool_use!r}")
    use_id, name, arguments = tool_use.get("id"), tool_use.get("name"), tool_use.get("input")
    if not isinstance(use_id, str) or not isinstance(name, str) or not isinstance(arguments, dict):
        raise TypeError(f"a tool_use block needs str id, str name and dict input: {tool_use!r}")
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": use_id}
    function = impls.get(name)
    if function is None:
        result.update(content=f"unknown tool {name!r}; tools: {', '.join(impls)}", is_error=True)
        return result
    try:
        result["content"] = function(**arguments)
    except (TypeError, ValueError) as error:
        result.update(content=f"{name} failed: {error}", is_error=True)
    return result


def is_correct(answer: str) -> bool:
    """Whether an answer names the right service, its total and its main cause.

    Args:
        answer: the agent's final text.

    Returns:
        True when it mentions `auth`, `760` and `failover` (any case).

    Examples:
        >>> is_correct("auth: 760 minutes, mostly database failover")
        True
        >>> is_correct("payments: 410 minutes")
        False
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a str, got {type(answer).__name__}")
    words = (GROUND_TRUTH.service, str(GROUND_TRUTH.minutes), GROUND_TRUTH.cause.split()[-1])
    return all(re.search(rf"\b{re.escape(word)}\b", answer, re.IGNORECASE) for word in words)
