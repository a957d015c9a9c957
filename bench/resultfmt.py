"""Shared by the bench result formatters (bench_result.py, suite_result.py,
tc_result.py): one way to print a table cell and one way to write a result as
<stem>.json (for machines) and <stem>.md (for people). Standard library only."""
import json, os


def cell(v, fmt="{:.2f}", missing="n/a"):
    """A Markdown table cell: `missing` for None, booleans and strings as they are,
    numbers through `fmt`."""
    if v is None:
        return missing
    if isinstance(v, (bool, str)):
        return str(v)
    return fmt.format(v)


def write_result(stem, data, md_lines):
    """Writes stem.json (indented) and stem.md (the lines, newline-terminated);
    creates the folder. Returns the .md path."""
    os.makedirs(os.path.dirname(stem) or ".", exist_ok=True)
    with open(stem + ".json", "w") as f:
        json.dump(data, f, indent=2)
    with open(stem + ".md", "w") as f:
        f.write("\n".join(md_lines) + "\n")
    return stem + ".md"
