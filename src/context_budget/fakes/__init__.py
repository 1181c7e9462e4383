"""The offline stand-ins for a model, one family.

- `ScriptedClient` (`fakes.scripted`): answers `messages.create(**request)`
  from a list of responses or a function; `scripted_response` writes one.
- `SimulatedModel` (`fakes.simulated`): a model that works the incident-report
  task from the request alone; give its `respond` to `ScriptedClient`, or put
  it behind an `EmulatedClient` for the prompt cache and server-side editing.
- `EmulatedClient` (`fakes.emulated`): the SDK's client shape with the
  server's side too: it applies `context_management` edits (those of
  `context_budget.editing`), bills against a `PromptCache` and answers with
  API-shaped dicts.
- `race_fix_model` and `one_read_per_call` (in `fakes._responders`, used
  through `scenarios.race_fix` and `scenarios.cache_runs`): the small
  responders of the race-fix and cache-chapter runs.

They behave alike: a client keeps every request it was sent in `requests`
(each message copied once, however many requests send it again), and a
script that runs out raises `ScriptExhaustedError`. Every fake is
deterministic.
"""

from context_budget.fakes.emulated import EmulatedClient
from context_budget.fakes.scripted import ScriptedClient, scripted_response
from context_budget.fakes.simulated import SimulatedModel

__all__ = ["EmulatedClient", "ScriptedClient", "SimulatedModel", "scripted_response"]
