import json
import sys

from helper import handle


def main(name="local-py-server"):
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError as e:
            reply = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error: %s" % e}}
        else:
            if msg.get("id") is None:
                continue
            reply = dict(jsonrpc="2.0", id=msg["id"], **handle(msg, name))
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
