"""Usage and cost: match counters per chunk, tokens and questions per tenant
(``model``), recorded off the query path (``meter``), reported with an estimated
cost from the settings' price table (``report``). See docs/usage.md."""
