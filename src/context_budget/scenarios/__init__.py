"""Ready-made conversations that the lessons and practical units run on.

- `context_budget.scenarios.lucy`: one working day at Lucy's ice-cream shop,
  the conversation that the practical Unit A compacts at several budgets.

Import a scenario's data from its module, e.g.
`from context_budget.scenarios.lucy import LUCY, PLANS`. Every scenario is
deterministic: calling it twice gives equal, separate lists.
"""
