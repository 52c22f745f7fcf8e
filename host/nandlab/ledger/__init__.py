"""The chip ledger: a persistent history of every chip, keyed by its unique ID.

P/E cycles per block, bad blocks found, bakes and the runs that touched the
chip, in one crash-safe SQLite file (WAL mode) in the data folder. Campaigns
read it, so a block's true wear is never forgotten between runs; every erase
the chip layer runs reaches it, from campaign units and one-off commands alike.
"""

from nandlab.ledger.book import book_wear, check_ledger, forget_fresh_die, one_off_id
from nandlab.ledger.db import Ledger, ledger_path

__all__ = ["Ledger", "book_wear", "check_ledger", "forget_fresh_die", "ledger_path", "one_off_id"]
