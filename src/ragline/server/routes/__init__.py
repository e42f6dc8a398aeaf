"""One module per resource; ``ROUTERS`` is the order they are mounted in."""

from . import (
    ask,
    collections,
    conversations,
    documents,
    health,
    jobs,
    openai_compat,
    search,
    tenants,
    transactions,
    usage,
)

# Each router is included directly (never nested), so a route's path is its full template
# (used as the metrics and log label).
ROUTERS = [health.router, tenants.admin, tenants.router, collections.router, documents.router, jobs.router, search.router,
           ask.router, openai_compat.router, conversations.router, transactions.router, usage.router]
