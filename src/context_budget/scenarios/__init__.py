"""Ready-made conversations and runs that the lessons and practical units use.

- `context_budget.scenarios.lucy`: one working day at Lucy's ice-cream shop,
  the conversation that the practical Unit A compacts at several budgets.
- `context_budget.scenarios.layouts`: Lucy's day sent turn by turn under five
  prompt layouts, for `cache_report`.
- `context_budget.scenarios.race_fix`: an agent mending a race in an order
  service (Part III), as a script of responses or a simulated model.
- `context_budget.scenarios.incidents`: the incident-report task of the
  experiment: 24 reports, one question, and the tools to answer it.
- `context_budget.scenarios.cache_runs`: two offline runs over those reports
  for the cache chapters (`prefix_run`, `middle_run`), priced call by call.

Import a scenario's data from its module, e.g.
`from context_budget.scenarios.lucy import LUCY, PLANS`. Every scenario is
deterministic: calling it twice gives equal, separate lists.
"""
