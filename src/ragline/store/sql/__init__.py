"""The SQL the two relational backends (SQLite and PostgreSQL) share, written once
with the placeholder and a few functions as the only differences."""
