#!/usr/bin/env python3
"""Validate a JSON file against one of ttlplan's JSON Schemas (docs/schema/).

    validate.py SCHEMA JSON_FILE [--expect-invalid]

The schema is first checked against the draft 2020-12 meta-schema, then JSON_FILE is validated
with jsonschema.Draft202012Validator. Every error is printed with its JSON path.
Exit status: 0 when JSON_FILE is valid (with --expect-invalid: 0 only when it is INVALID, and the
first error is printed), 1 otherwise (also for an unreadable or malformed file or schema);
2 for bad arguments (argparse).
"""
import argparse
import json
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError as e:  # pragma: no cover - environment problem
    print(f"validate.py: error: cannot import jsonschema ({e}); install python3-jsonschema",
          file=sys.stderr)
    sys.exit(1)


def json_path(error):
    """The instance path of an error as `$.a[0].b`."""
    out = "$"
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def load(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        print(f"validate.py: error: cannot read {what} {path}: {e.strerror}", file=sys.stderr)
    except json.JSONDecodeError as e:
        print(f"validate.py: error: {what} {path} is not JSON: {e}", file=sys.stderr)
    sys.exit(1)


def short_message(error):
    """The error's message, with a long repr of the instance shortened (a `not` or `if`/`then`
    failure at the root would otherwise print the whole document)."""
    message = error.message
    text = repr(error.instance)
    if len(text) > 120 and text in message:
        brief = "{...}" if isinstance(error.instance, dict) else "[...]" if isinstance(
            error.instance, list) else text[:100] + "..."
        message = message.replace(text, brief)
    if len(message) > 400:
        message = message[:400] + "..."
    return message


def describe(error):
    return f"{json_path(error)}: {short_message(error)}"


def most_specific(error):
    """For oneOf/anyOf failures, the sub-error jsonschema finds most relevant."""
    if error.context:
        return jsonschema.exceptions.best_match(error.context) or error
    return error


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("schema", help="a JSON Schema (draft 2020-12), e.g. docs/schema/plan.schema.json")
    parser.add_argument("json_file", help="the JSON to validate")
    parser.add_argument("--expect-invalid", action="store_true",
                        help="succeed only when JSON_FILE does NOT validate (a negative test)")
    args = parser.parse_args(argv)

    schema = load(args.schema, "schema")
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"validate.py: error: {args.schema} is not a valid draft 2020-12 schema: "
              f"{e.message} (at {'/'.join(str(p) for p in e.absolute_path) or 'the root'})",
              file=sys.stderr)
        return 1
    instance = load(args.json_file, "JSON file")

    validator = Draft202012Validator(schema)
    # Deterministic order: by path, then message; the catch-all keywords last, so the first error
    # is the most specific one.
    catch_all = ("additionalProperties", "unevaluatedProperties", "not", "if")
    errors = sorted(validator.iter_errors(instance),
                    key=lambda e: (e.validator in catch_all, [str(p) for p in e.absolute_path],
                                   e.message))
    if args.expect_invalid:
        if not errors:
            print(f"{args.json_file}: valid against {args.schema}, but --expect-invalid was given")
            return 1
        print(f"{args.json_file}: invalid as expected: {describe(most_specific(errors[0]))}")
        return 0
    if not errors:
        print(f"{args.json_file}: valid against {args.schema}")
        return 0
    print(f"{args.json_file}: {len(errors)} error(s) against {args.schema}:")
    for e in errors:
        print(f"  {describe(e)}")
        # oneOf/anyOf: say which alternative failed how.
        for sub in sorted(e.context or [], key=lambda s: (list(map(str, s.absolute_path)), s.message)):
            print(f"    - {describe(sub)}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
