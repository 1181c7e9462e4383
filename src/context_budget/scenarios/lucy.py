"""Lucy's day: one working day of an agent helping run an ice-cream shop.

The conversation is built so that compaction has real choices to make:

- early user turns state the shop's name and three house rules, in words
  with no digits in them;
- two decisions carry numbers and change later: the closing time (6 pm, then
  7 pm) and the approved chocolate supplier (PO 5512, then PO 6120);
- bulky tool results (two freezer counts, a delivery list, two sales logs)
  hold most of the day's tokens, and two facts live only inside them;
- the very last user turn says where the tasting-club sign-up sheet goes.

`QUESTIONS` pairs each fact with a *needle*, a phrase that is visible to the
model exactly when the fact is, and with where the fact lives. Each needle
appears in one place of the day only, never on a digit-free line that a
summary would drop by accident, and never inside the small tool results that
clearing keeps. `context_budget.survival.survives` looks a needle up in
everything the model sees; `LUCY` and `PLANS` are the day and Unit A's four
budgets in the shape `context_budget.survival.survival_table` takes.

Shapes:

- `lucy_day()` -> list of message dicts (35 messages, a few thousand tokens
  by `estimate_tokens`);
- `QUESTIONS` -> list of `(fact, needle, where)` strings.

Examples:
    >>> day = lucy_day()
    >>> day[0]["role"], day[-2]["role"], len(day)
    ('user', 'user', 35)
    >>> from context_budget.survival import survival_table
    >>> [len(row["kept"]) for row in survival_table(LUCY, PLANS).values()]
    [11, 9, 5, 9]
"""

from __future__ import annotations

from context_budget.messages import Message, tool_message
from context_budget.survival import Plan, Scenario, size_after_clearing, whole_size

__all__ = ["FLAVORS", "LUCY", "PINNED", "PLANS", "QUESTIONS", "SYSTEM", "lucy_day"]

#: The system prompt. It names neither the shop nor a rule, so whatever the
#: model knows of those comes from the pinned records or the conversation.
SYSTEM = (
    "You are the assistant agent of a small ice-cream shop. You read stock, "
    "deliveries and sales through tools, answer the owner briefly, and follow "
    "the house rules she gives you."
)

#: The shop's flavours, in the order the sales logs cycle through them.
FLAVORS = [
    "vanilla",
    "chocolate",
    "strawberry",
    "pistachio",
    "mint chip",
    "mango",
    "lemon sorbet",
    "salted caramel",
    "coffee",
    "raspberry ripple",
]

#: Lucy's standing rules, kept by the application as records (one str each).
#: None holds a digit, so a summary that keeps digit lines drops every one.
PINNED = [
    "The shop is called The Marble Spoon.",
    "Mango is never ordered from Frostline.",
    "Nut-free orders are served with the green scoop only.",
    "The back freezer stays locked whenever the kitchen is empty.",
]

# Where a fact lives in the day (the third item of each question).
_RULE = "a rule Lucy stated"
_TOOL = "only in a tool result"
_EARLY = "stated early, replaced later"
_CHANGED = "changed later in the day"
_LAST = "the last minute of the day"

#: (fact, needle, where): the needle is visible to the model exactly when the
#: fact is; matching ignores case.
QUESTIONS: list[tuple[str, str, str]] = [
    ("the shop is called The Marble Spoon", "Marble Spoon", _RULE),
    ("mango is never ordered from Frostline", "never ordered from Frostline", _RULE),
    ("nut-free orders use the green scoop", "green scoop", _RULE),
    ("the back freezer stays locked when the kitchen is empty", "freezer stays locked", _RULE),
    ("closing time was 6 pm", "close at 6 pm", _EARLY),
    ("closing time is now 7 pm", "close at 7 pm", _CHANGED),
    ("chocolate was approved from Cacao Hill, PO 5512", "PO 5512", _EARLY),
    ("chocolate is now approved from Brookside Cocoa, PO 6120", "PO 6120", _CHANGED),
    ("delivery A-4817 was 20 tubs", "A-4817: 20 tubs", _TOOL),
    ("the morning count found 37 tubs of strawberry", "strawberry: 37 tubs", _TOOL),
    ("the sign-up sheet goes on the corkboard by the door", "corkboard", _LAST),
]

# flavour -> tubs in the back freezer, at the morning and the afternoon count
_MORNING_TUBS = [24, 19, 37, 11, 16, 9, 14, 21, 8, 13]
_AFTERNOON_TUBS = [18, 15, 29, 7, 12, 6, 10, 17, 5, 9]
# flavour -> how full its display pan is, in percent, at the two counts
_MORNING_PANS = [90, 85, 95, 70, 80, 60, 75, 90, 65, 70]
_AFTERNOON_PANS = [40, 35, 25, 30, 45, 20, 50, 30, 55, 35]
_DRY_STORE = ["waffle cones", "sugar cones", "paper cups", "wooden spoons", "sprinkle jars"]


def _user(text: str) -> Message:
    return {"role": "user", "content": text}


def _assistant(text: str) -> Message:
    return {"role": "assistant", "content": text}


def _freezer_count(time: str, tubs: list[int], pans: list[int], dry: list[int]) -> Message:
    """A stock count: back-freezer tubs, display pans and the dry store, one row each."""
    rows = [
        f"back B{1 + i // 5}-{i % 5 + 1:02} | {flavor}: {count} tubs | "
        f"best before 2026-10-{10 + (3 * i) % 19:02} | -{18 + i % 3} C"
        for i, (flavor, count) in enumerate(zip(FLAVORS, tubs, strict=True))
    ]
    rows += [
        f"display pan {i + 1:02} | {flavor} | {full}% full"
        for i, (flavor, full) in enumerate(zip(FLAVORS, pans, strict=True))
    ]
    rows += [f"dry store | {item}: {count}" for item, count in zip(_DRY_STORE, dry, strict=True)]
    return tool_message("freezer_count", {"counted_at": time, "rows": rows, "unit": "tubs of 5 l"})


def _sales_log(start_hour: int, minutes: int, sales: int, offset: int) -> Message:
    """One row per sale, `sales` of them spread evenly over `minutes` from `start_hour`."""
    rows = []
    for i in range(sales):
        at = (i * minutes) // sales + (i * offset) % 3  # minutes after start_hour o'clock
        flavor = FLAVORS[(3 * i + offset) % len(FLAVORS)]
        scoops = 1 + (i * i + offset) % 3
        noun = "scoop" if scoops == 1 else "scoops"
        paid = "cash" if (i + offset) % 4 == 0 else "card"
        rows.append(f"{start_hour + at // 60}:{at % 60:02} | {flavor} | {scoops} {noun} | {paid}")
    return tool_message("sales_log", {"from": f"{start_hour}:00", "rows": rows})


def lucy_day() -> list[Message]:
    """The whole day, oldest message first: a new list of new dicts on every call.

    Returns:
        35 messages: user turns, assistant replies, and `"tool"` shorthand
        results (`tool_message`), the last being Lucy's final word and the
        assistant's answer to it.
    """
    return [*_morning(), *_afternoon(), *_closing()]


def _morning() -> list[Message]:
    """The standing instructions, the opening hours, the morning's counts, deliveries and sales."""
    return [
        _user(
            "Morning! Before we open, some standing instructions.\n"
            "The shop is called The Marble Spoon, so use that name on anything "
            "customers see.\n"
            "House rules, and they do not bend:\n"
            "Mango is never ordered from Frostline. Their mango base split on us "
            "twice last summer.\n"
            "Nut-free orders are served with the green scoop only, washed first.\n"
            "The back freezer stays locked whenever the kitchen is empty."
        ),
        _assistant("Understood. I have the shop's name and the three house rules."),
        _user(
            "Hours: we open at 11 am and close at 6 pm.\n"
            "Chocolate base comes from Cacao Hill, approved under PO 5512 on 2 March."
        ),
        _assistant("Noted, the opening hours and the chocolate supplier."),
        _user("Can you pull this morning's freezer count?"),
        _freezer_count("08:10", _MORNING_TUBS, _MORNING_PANS, [340, 410, 950, 1200, 12]),
        _assistant(
            "The count is in. The back freezer is well stocked; coffee and mango run thinnest."
        ),
        _user("What came in with this morning's deliveries?"),
        tool_message(
            "deliveries",
            {
                "date": "2026-09-29",
                "rows": [
                    "A-4815: 12 tubs | Frostline | vanilla | checked by Sam",
                    "A-4816: 8 tubs | Northwind Dairy | chocolate | checked by Sam",
                    "A-4817: 20 tubs | Frostline | lemon sorbet | checked by Priya",
                    "A-4818: 6 tubs | Sunfield Fruit | mango | checked by Priya",
                    "A-4819: 4 boxes | Cone Corner | waffle cones | checked by Sam",
                    "A-4820: 2 crates | Brookside Cocoa | sample bars | checked by Priya",
                ],
                "temperature_check": "all below -15 C on arrival",
            },
        ),
        _assistant("Everything that arrived is checked in and signed for."),
        _user("Good. Order more vanilla and lemon sorbet from Frostline for Friday."),
        _assistant("Done: vanilla and lemon sorbet are on Friday's Frostline order."),
        _user("Show me the sales log so far."),
        _sales_log(11, 180, 64, 1),
        _assistant("Mint chip and salted caramel lead so far; three sales in four were by card."),
    ]


def _afternoon() -> list[Message]:
    """The new closing time, the new chocolate supplier, the afternoon count."""
    return [
        _user(
            "Change of plan on the hours: from today we close at 7 pm. The evening "
            "crowd is worth it."
        ),
        _assistant("Understood. I'll update the door sign text and the online listing."),
        _user(
            "Bad news on chocolate. Cacao Hill failed its hygiene audit, so their "
            "approval is withdrawn.\n"
            "Chocolate base now comes from Brookside Cocoa, approved under PO 6120 "
            "on 29 September."
        ),
        _assistant("Understood. Future chocolate orders go to Brookside Cocoa."),
        _user("Pull the afternoon freezer count, please."),
        _freezer_count("15:30", _AFTERNOON_TUBS, _AFTERNOON_PANS, [220, 300, 610, 840, 9]),
        _assistant(
            "The display pans are running down; strawberry and mango need topping "
            "up from the back freezer."
        ),
        _user("Is anything from Frostline due tomorrow?"),
        _assistant("Nothing tomorrow; the next Frostline order is Friday's."),
    ]


def _closing() -> list[Message]:
    """After closing: the late sales, the till, the freezer lock, Lucy's last word."""
    return [
        _user("We're closed. Show me the sales log from two o'clock on."),
        _sales_log(14, 296, 84, 2),
        _assistant(
            "Strawberry and mango sold best after two, and the extra hour brought a late queue."
        ),
        _user("What did the till take today?"),
        tool_message("till_total", {"card": 1186.4, "cash": 212.5, "currency": "EUR"}),
        _assistant("A good day: the till is balanced and the card terminal is closed."),
        _user("Is the back freezer locked?"),
        tool_message("door_sensor", {"back_freezer": "locked", "front_door": "open"}),
        _assistant("Yes, it is locked. Only the front door is still open."),
        _user(
            "Last thing before I switch the lights off: the sign-up sheet for the "
            "tasting club goes on the corkboard by the door."
        ),
        _assistant("I'll remind whoever opens tomorrow to pin it on the corkboard by the door."),
    ]


#: Lucy's day as a scenario for `context_budget.survival`.
LUCY = Scenario(system=SYSTEM, pinned=PINNED, conversation=lucy_day, questions=QUESTIONS)

#: Unit A's four plans, in the order it runs them: the whole day's own size;
#: its size after clearing (where clearing alone suffices); 400 tokens; and 400
#: tokens with `PINNED` sent as pinned records.
PLANS = [
    Plan("whole day", whole_size),
    Plan("clear only", size_after_clearing),
    Plan("400", 400),
    Plan("400+pinned", 400, pinned=True),
]
