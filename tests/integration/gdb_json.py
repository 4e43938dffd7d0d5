"""Imported inside gdb by the scripts the integration tests source there
(dump_cases.py, edit_cases.py): an mpipp -json command's document, or its
error."""
import json

import gdb


def mpipp_json(command):
    try:
        return json.loads(gdb.execute(command, to_string=True))
    except gdb.error as err:
        return {"error": str(err)}

