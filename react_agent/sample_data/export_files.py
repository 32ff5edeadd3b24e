"""Write the sample data as CSV files: `python -m react_agent.sample_data.export_files DIR`.

The folder is then a data source of its own: DATA_DATABASE_URL=duckdb:///DIR.
"""

from __future__ import annotations

import argparse
import csv
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.sample_data.dataset import TABLES


def write_sample_folder(folder: Path) -> Path:
    """Write each table of the SQLite sample as a CSV file named after it; return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(f"{SAMPLE_DB_PATH.as_uri()}?mode=ro", uri=True) as connection:
        for table in TABLES:
            cursor = connection.execute(f"SELECT * FROM {table.name}")
            with (folder / f"{table.name}.csv").open("w", encoding="utf-8", newline="") as out:
                writer = csv.writer(out)
                writer.writerow([column[0] for column in cursor.description])
                writer.writerows(cursor)
    return folder


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and write the files."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path, help="where the CSV files go (created if needed)")
    folder = write_sample_folder(parser.parse_args(argv).folder)
    print(f"wrote {len(TABLES)} CSV files to {folder}")


if __name__ == "__main__":
    main()
