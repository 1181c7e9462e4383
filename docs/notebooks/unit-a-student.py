# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Unit A, student edition: count every token, then compact
#
# Lucy runs an ice-cream shop, and an agent helps her through the day. By
# closing time their conversation is too long to send in one request. This
# notebook follows where its tokens go, has you write the two functions that
# bring it back under a budget, `clear_old_tool_results` and `compact`, and
# then checks which of Lucy's facts the model can still find, and why the
# facts that must never go missing belong outside the transcript.
#
# **By the end of the session you can:**
#
# - take one request apart into system, pinned and conversation layers,
#   order them from the most stable to the least, and book each token to
#   exactly one layer;
# - predict a token count from length alone, and name the kinds of text on
#   which that prediction misses;
# - write `clear_old_tool_results`, which blanks the tool results the agent
#   has already used, and `compact`, which calls on it first and writes a
#   summary only when blanking was not enough, passing pinned records through
#   untouched;
# - demonstrate on Lucy's day that compaction can erase a rule living in the
#   transcript, and cannot erase the same rule held as a pinned record.
#
# **Time:** about 90 minutes, one sitting. **Prerequisites:** Python lists
# and dicts, and one picture of a model call: messages go in, one reply comes
# out. Everything else (tokens, layers, compaction) is explained where it is
# first used; the chapters [Layers and the budget report](../budget/layers.md)
# and [Clearing and compaction](../spending/clearing-and-compaction.md) go
# further.
#
# **Timing.** A single sitting; the minutes below budget your time, they do
# not report how long anyone took.
#
# | minutes | work | evidence you keep |
# |---|---|---|
# | 0–10 | guess which facts outlive a cut of Lucy's day | prediction notes |
# | 10–25 | layers, the budget report, the estimate, two cuts | printed output |
# | 25–55 | write both functions; pass the visible cases | your code, grades |
# | 55–70 | run compaction on the day at four budgets | the survival lists |
# | 70–85 | changed constraint: filter the matching lines | the transfer table |
# | 85–90 | explain records versus transcript; save | the submission file |
#
# **Running it.** Run All works from the first cell: only the standard
# library is used, with no model and no network. The two functions start as
# unfinished starters, so the grade reports `NEEDS_WORK` until you replace
# them; that is the expected first result. Files you save land in
# `practical-work/unit-a/` inside the notebook's working folder, each with
# `student` in its name; the worked edition saves under names of its own.
# Save your own attempt before looking at the worked edition.

# %%
import json

from context_budget.grading import report_line
from context_budget.grading.unit_a import WORK_FOLDER, save_work

EDITION = "student"  # every file this notebook saves carries this name
print("work folder:", WORK_FOLDER.as_posix())

# %% [markdown]
# ## 1. Before any output: your prediction
#
# Lucy's day is a single long conversation. Near its start she names the
# shop, lays down house rules and makes two decisions that she revises later
# on; long freezer counts and sales logs fill the middle. The conversation has
# outgrown its budget and has to be shortened. Without running anything yet,
# decide for each item whether the model will still see it afterwards:
#
# - the shop's name, and the rule that mango is never bought from Frostline;
# - the closing time, which Lucy revises during the day;
# - how many tubs delivery A-4817 brought, a figure no message except one
#   tool result ever contained;
# - where the tasting-club sign-up sheet should go, which Lucy asks about at
#   the very end.
#
# Overwrite the four strings with your own sentences.

# %%
prediction_notes = {
    "prediction": "Which of the four facts can the model still see?",
    "reason": "The rule you used to decide.",
    "falsifier": "An output that would prove that rule wrong.",
    "revision": "After running: what changed in your understanding.",
}

# %% [markdown]
# ## 2. Where the tokens go
#
# Whatever the agent sends arrives at the model as one request. We cut that
# request into layers according to how often each part changes:
#
# | layer | what it holds | how often it changes |
# |---|---|---|
# | system | the system prompt | almost never |
# | pinned | records always sent: rules, suppliers | rarely; never compacted |
# | conversation | the messages | every turn |
#
# Sending the steady layers first is what lets a prompt cache keep working,
# and counting layer by layer tells you which one is eating the budget.
# `budget_report` plays the part of a coding agent's `/context` command: a
# token count and a share for each layer.

# %%
from context_budget import Layers, budget_report
from context_budget.scenarios.lucy import PINNED, SYSTEM, lucy_day

day = lucy_day()
without_records = budget_report(Layers(SYSTEM, [], day))
with_records = budget_report(Layers(SYSTEM, PINNED, day))
print(len(day), "messages in Lucy's day")
print(without_records)
print()
print(with_records)
print(json.dumps(with_records))

# %%
from context_budget import message_tokens

largest = max(day, key=message_tokens)
tokens = message_tokens(largest)
share = tokens / without_records["conversation"]
print(f"largest message: a {largest['role']} result from {largest['name']!r}")
print(f"{tokens} tokens, {share:.0%} of the conversation")

# %% [markdown]
# Put the two reports side by side. Adding the pinned records barely moves
# the total, while the single biggest message, a tool result, is by itself a
# sizeable slice of the conversation (the share is printed above). The bulk
# of Lucy's day is tool output that did its job the moment the agent read it.
# Those tokens are the first that compaction goes after.

# %% [markdown]
# ## 3. Counting without a tokenizer
#
# `estimate_tokens` is arithmetic on length: the number of characters divided
# by four, rounded up. A tokenizer works from a vocabulary instead. Everyday
# English words tend to be one piece each, while numbers fall apart digit by
# digit and the quotes, colons and braces of JSON become small pieces of
# their own. No single ratio suits every kind of text.
#
# The four rows below are the original measurement this course started from:
# character counts and real Qwen2.5 token counts for a prose sample, a JSON
# sample, a digit-heavy sample and a Python sample. The chapter *Tokens and
# estimates* cites them next to the course's own live measurement on the
# samples it ships. Only the estimate and the error are computed here.

# %%
from context_budget import estimate_tokens

MEASURED = [  # the original measurement: characters, and tokens by Qwen2.5
    {"kind": "prose", "chars": 1775, "tokenizer": 349},
    {"kind": "json", "chars": 2573, "tokenizer": 1048},
    {"kind": "numbers", "chars": 2016, "tokenizer": 1187},
    {"kind": "python", "chars": 2400, "tokenizer": 540},
]
ROW = "{:8} {:>6} {:>9} {:>10} {:>7}"
print(ROW.format("kind", "chars", "estimate", "tokenizer", "error"))
for sample in MEASURED:
    kind, chars, measured = sample["kind"], sample["chars"], sample["tokenizer"]
    # the estimate reads only the length
    estimate = estimate_tokens("x" * chars)
    error = f"{estimate / measured - 1:+.0%}"
    print(ROW.format(kind, chars, estimate, measured, error))

# %% [markdown]
# **Check yourself.** A plus sign means the estimate is too high, so you hold
# back budget you could have used; a minus sign means it is too low, so a
# request can be bigger than you believe. On which kinds of text is the
# estimate too low, and which of Lucy's messages consist of that kind of text?

# %% [markdown]
# ## 4. Shortening one long tool result
#
# Sometimes a single result is too long to send whole. The package offers two
# ways to shorten it. `head` keeps the opening lines and silently drops
# everything else; in a log, where the newest rows come last, the newest rows
# are precisely what vanishes. `head_and_tail` keeps lines from both ends and
# puts a note in the gap with the number of lines taken out. The model still
# cannot read those lines, but it is told they existed.

# %%
from context_budget import head, head_and_tail
from context_budget.scenarios.lucy import FLAVORS

rows, clock = [], 10 * 60  # the clock counts minutes after midnight
# 80 sales, the flavours taking turns
for sale, flavor in enumerate(FLAVORS * 8):
    rows.append(f"{clock // 60}:{clock % 60:02} | {flavor} x{sale % 3 + 1}")
    clock += 5  # a sale every five minutes
sales = "\n".join(rows)
print(head(sales, 60))
print("---")
print(head_and_tail(sales, 60))

# %% [markdown]
# ## 5. Exercise 1: `clear_old_tool_results`
#
# Write `clear_old_tool_results(messages, keep_last)`.
#
# - The tool results are the messages whose role is `"tool"`. The final
#   `keep_last` of them pass through as they are.
# - Every earlier tool result becomes a copy whose content is this marker,
#   with N equal to `estimate_tokens` of the content it replaces:
#
#       [tool result cleared to save context: N tokens]
#
# - All other messages come through unchanged, and the order is the order of
#   the input.
# - The function builds a fresh list: the caller's list, and every dict in
#   it, are left exactly as they were.
#
# Only the result is blanked, never the call that asked for it. The agent can
# still see, further up, that it made the call, so it knows the data existed
# and can ask for it a second time.
#
# As given, the starter copies the messages and clears none of them.


# %%
def clear_old_tool_results(messages, keep_last):
    """STARTER: copies every message and clears nothing."""
    return [dict(message) for message in messages]


# %% [markdown]
# ## 6. Exercise 2: `compact`
#
# Write `compact(layers, budget, summarize)`. It returns new `Layers` whose
# size, `budget_report(...)["total"]`, is no more than `budget`. Try the
# cheap move before the expensive one:
#
# 1. **Already fits?** Return a copy with nothing changed.
# 2. **Clear.** Clear old tool results with `keep_last=2`. If the result
#    fits, return it and go no further.
# 3. **Summarize.** Find the latest user message. All the messages before it
#    go to `summarize`, and a single user message takes their place. Its
#    content: `"Summary of the earlier conversation:\n"`, then the return
#    value of `summarize(older_messages)`. The latest user message, and every
#    message after it, stay.
#
# `system` and `pinned` come out exactly as they went in. Three situations end
# in `ContextOverflowError` rather than a return value:
#
# - system and pinned together already exceed `budget`;
# - no message comes before the latest user message, so nothing can be
#   summarized;
# - the summarized context is still over `budget`.
#
# Whatever happens, a context larger than `budget` is never returned. Build the
# error from a message plus two keyword arguments:
# `ContextOverflowError("why", budget=budget, size=tokens)`.
#
# The starter copies a habit found in many agents: throw away the oldest
# message, measure the entire context from scratch, and repeat until the
# total fits.

# %%
# compact raises it
from context_budget import ContextOverflowError  # noqa: F401


def compact(layers, budget, summarize):
    """STARTER: forgets the oldest messages until what is left fits."""
    conversation = list(layers.conversation)
    start = 0
    while start < len(conversation):
        rest = Layers(layers.system, layers.pinned, conversation[start:])
        if budget_report(rest)["total"] <= budget:
            break
        start += 1
    kept = conversation[start:]
    return Layers(layers.system, list(layers.pinned), kept)


# %% [markdown]
# ### Hints
#
# Each hint is folded; open the next one only when the last did not get you
# moving.
#
# <details><summary>Hint 1: why tool results are first in line</summary>
#
# Ask two things of every message in the budget report of section 2: how many
# tokens it holds, and what it would take to get it back. A freezer count is
# large and cheap to recover, because the call that fetched it stays in the
# transcript and the tool will answer again. A rule Lucy typed is small, and
# nobody but Lucy can type it again.
#
# </details>
#
# <details><summary>Hint 2: where the cut goes</summary>
#
# Whatever the agent does next answers the newest thing Lucy said. Fold that
# turn into the summary and the agent is answering a retelling of her words
# rather than the words themselves. Walk the list back from the end to the
# first message whose role is `"user"`: that index is the cut, and everything
# from it onwards stays word for word. Real agents need one more rule: in
# Anthropic's format, tool results travel inside user messages, and a user
# message made only of tool results is the agent hearing back from its own
# calls, so a real cut passes over it.
#
# </details>
#
# <details><summary>Hint 3: why raise rather than return a near miss</summary>
#
# Think of whoever calls `compact`: they trust the result to fit. Hand back
# 401 tokens for a 400-token budget and the API refuses the request, or a
# layer further down trims it wherever it likes. An exception puts the budget
# and the size in front of a person now, while the cause is fresh; a quiet
# overshoot turns up much later as an answer that is wrong for no visible
# reason.
#
# </details>

# %% [markdown]
# ## 7. The grade table
#
# `grade_unit` runs your two functions on small fixed inputs, one row for
# each property in the contract; `check_rows` prints its verdict on them,
# `PASS` or `NEEDS_WORK`, then the rows. If your code raises or modifies its
# input, that row is marked as failed; the notebook keeps going. After every
# edit, run the cell you changed, then this one.

# %%
from context_budget.grading.unit_a import (
    check_rows,
    contract_status,
    grade_unit,
)

visible_rows = grade_unit(clear_old_tool_results, compact)
print(check_rows(visible_rows))
VISIBLE_CONTRACT = contract_status(visible_rows)
print("VISIBLE_CONTRACT", VISIBLE_CONTRACT)

# %% [markdown]
# ## 8. Four budgets for Lucy's day
#
# When the grade table shows every row passing, the next cell runs your
# `compact` on Lucy's day. The summarizer is `keep_numbers`, a deterministic
# stand-in for a model that keeps exactly the lines containing a digit. The
# four budgets are:
#
# 1. the whole day's own size, where nothing ought to change;
# 2. the day's size once its old tool results are cleared, where clearing on
#    its own ought to be enough;
# 3. a fixed 400 tokens, where the summary has to make up the difference;
# 4. the same 400 tokens, with Lucy's rules sent as pinned records.
#
# For each budget the cell prints which facts the model could still find.
# Write down your expectation for every budget before you run it.

# %%
from context_budget import keep_numbers
from context_budget.scenarios.lucy import LUCY, PLANS, QUESTIONS
from context_budget.survival import format_survival, survival_table

MANGO = "mango is never ordered from Frostline"
DELIVERY = "delivery A-4817 was 20 tubs"
survival = None
if VISIBLE_CONTRACT == "PASSED":
    survival = survival_table(LUCY, PLANS, compact, keep_numbers)
    print(format_survival(survival, LUCY))
    visible = {label: set(row["kept"]) for label, row in survival.items()}
    assert visible["whole day"] == {fact for fact, _, _ in QUESTIONS}
    assert DELIVERY not in visible["clear only"]
    assert MANGO in visible["clear only"]
    assert MANGO not in visible["400"]
    assert MANGO in visible["400+pinned"]
    print("SURVIVAL_ASSERTIONS HELD")
else:
    print("COMPACTION_NOT_READY: pass every visible case, then run this again.")

# %% [markdown]
# Once the lists print, hold them up against your prediction. For each fact
# that went missing, note the budget at which it went and where it had lived:
# a rule Lucy stated, the inside of a tool result, or a decision she revised
# later. Then find a rule that one 400-token run lost and the other kept, and
# say what differed between the two runs.

# %% [markdown]
# ## 9. The handoff file
#
# This file is kept for a follow-up unit. It records the budgets you ran and
# the facts each one kept, so that later work can start from your results
# instead of recomputing them.

# %%
handoff_path = None
if survival is not None:
    handoff = {
        "unit": "unit-a",
        "edition": EDITION,
        "status": "COMPLETED",
        "budgets": {label: row["budget"] for label, row in survival.items()},
        "summarizer": "keep_numbers",
        "pinned": PINNED,
        "survival": survival,
    }
    handoff_path = save_work(EDITION, "handoff", handoff)
    print("handoff written:", handoff_path)
else:
    print("HANDOFF_NOT_WRITTEN: the survival lists come first.")

# %% [markdown]
# ## 10. Exit ticket
#
# Two sentences per answer is plenty.
#
# 1. Compaction gives up tool results before it writes any summary. What
#    makes them the right thing to give up first?
# 2. After compaction, which of Lucy's facts can the agent get back by
#    itself, without going back to Lucy, and by what means?
# 3. Even one token over is too many for `compact`: it raises instead of
#    returning. What would go wrong if it handed back the slightly-too-large
#    context?

# %%
from context_budget.grading.unit_a import exercise_report

core_report = exercise_report(
    visible_rows, compaction_done=survival is not None, handoff=handoff_path
)
print(report_line("EXERCISE_REPORT", core_report))

# %% [markdown]
# ## 11. Changed constraint: a filter for matching lines
#
# About fifteen minutes: predict, implement and trace, then add a case of
# your own.
#
# `head` and `head_and_tail` pick lines by where they sit, not by what they
# say. When the agent already has a question in mind (how much pistachio has
# sold?), the useful lines are the ones that mention it, wherever they sit.
#
# Write `transfer_filter(text, needle, budget)`. Its output is:
#
# - every line of `text` in which `needle` occurs (case is ignored), but
#   only as many as `budget` allows, and always the latest ones:
#   every line costs `estimate_tokens(line + "\n")`, the kept lines are the
#   latest matches that fit, and they are printed in the order they have in
#   `text`;
# - then, at no cost to the budget, one final count line:
#
#       [kept K of M matching lines; T lines in total]
#
# When no line matches, the output is the count line and nothing else. The
# arguments are not modified. Before running the table, write down what you
# expect each case in `TRANSFER_CASES` to produce.


# %%
def transfer_filter(text, needle, budget):
    """STARTER: not written yet."""
    raise NotImplementedError(
        "write transfer_filter: matches from the end, then a count"
    )


# %%
from context_budget.grading.unit_a import (
    TRANSFER_CASES,
    check_rows,
    run_transfer,
)

transfer_rows = run_transfer(transfer_filter, TRANSFER_CASES)
for row in transfer_rows:
    status = "PASS" if row["passed"] else "NEEDS_WORK"
    print(status, row["case"], "->", repr(row["observed"]))
TRANSFER_STATUS = check_rows(transfer_rows).status
print("TRANSFER_STATUS", TRANSFER_STATUS)

# %% [markdown]
# ## 12. Your own case, and the filter's blind spot
#
# Work out one input and its exact output on paper, before your function ever
# sees it, and add it below; pick something the visible cases leave untested.
# Then consider a question about a sales log that this filter could not answer
# with any budget, however large. What tool would the agent need instead?

# %%
my_cases = [
    # ("what it checks", [text, needle, budget], "the exact output you expect"),
]
if my_cases:
    for row in run_transfer(transfer_filter, my_cases):
        print(row["status"], row["case"], "->", repr(row["observed"]))
else:
    print("NO_CASE_YET: add one case to my_cases.")

# %% [markdown]
# ## 13. Write up and save
#
# Fill in `prediction_notes` (section 1) and the notes below, then run the
# cell. Someone reading your notes later should be able to retrace the run
# from them:
#
# - a number or a line this notebook printed, copied as it appeared, and the
#   input it came from;
# - the line of your own code that decided that value;
# - a guess you made, here or in section 1, that an output contradicted;
# - the largest conclusion a reader might draw from this notebook that none
#   of its checks actually supports.
#
# On that last point, be honest about the reach of this unit. Every check
# here asks whether a fact is *present* in what the model is sent. None asks
# whether a model given that context reads the fact correctly and acts on it:
# being present is a precondition, not a guarantee.

# %%
explanation_notes = {
    "causal_trace": "The input, the line of your code, the value observed.",
    "failed_hypothesis": "A prediction the outputs changed.",
    "remaining_limit": "What this experiment does not establish.",
}
submission = {
    "unit": "unit-a",
    "edition": EDITION,
    "explanation_review": "HUMAN_REVIEW_REQUIRED",
    "starting_evidence": "INDEPENDENT_UNIT_A",
    "core_report": core_report,
    "transfer": transfer_rows,
    "prediction": prediction_notes,
    "explanation": explanation_notes,
}
print("saved:", save_work(EDITION, "submission", submission))
from context_budget.grading.unit_a import course_report

course = course_report(
    EDITION, VISIBLE_CONTRACT, transfer_rows, submission["starting_evidence"]
)
print(report_line("COURSE_REPORT", course))

# %% [markdown]
# ## Sources
#
# - Anthropic (September 2025),
#   [*Effective context engineering for AI agents*](https://www.anthropic.com/engineering/effective-context-engineering-for-ai-agents):
#   compaction, clearing old tool results, and notes kept outside the window.
# - Anthropic, [context editing documentation](https://platform.claude.com/docs/en/build-with-claude/context-editing):
#   clearing the oldest tool results first, replacing each with a placeholder.
# - Anthropic,
#   [tool use documentation](https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview):
#   `tool_use` and `tool_result` blocks, which a cut must keep together.
# - The chapters this unit practises:
#   [Layers and the budget report](../budget/layers.md),
#   [Tokens and estimates](../budget/tokens.md) and
#   [Clearing and compaction](../spending/clearing-and-compaction.md).
