"""ToolAlpaca's evaluation sets as a tool-retrieval benchmark of category ``customized``, from source data.

ToolAlpaca (Tang et al. 2023; Apache-2.0, tangqiaoyu/ToolAlpaca @ 18906999, ``data/``) is the source of
ToolRet's ``toolalpaca`` subset. Both evaluation sets are read: ``eval_real.json`` (11 real APIs, 114
instructions) and ``eval_simulated.json`` (10 simulated APIs, 100 instructions); ``Tool.subset`` and
``Query.subset`` say which (``toolalpaca/real``, ``toolalpaca/simulated``).

* **Tools**: every function of every API, id ``toolalpaca_<api>_<function>`` (``<api>`` the API name in
  lower case, accents dropped, every other run of characters that is not a letter or digit turned into
  ``-``: ``Nager.Date`` -> ``nager-date``), ``name`` the function, ``platform`` the API name. An API's
  functions are those of its ``Function_Projection`` (function -> path and method), which is how ToolAlpaca
  names the operations of the API's OpenAPI ``Documentation`` (the ``operationId``, else the path without
  braces, ``/`` -> ``_``, and ``_<method>``). The documentation is ``{"name", "description", "api",
  "api_description", "path", "method", "documentation"}``: ``description`` the operation's OpenAPI summary
  (else its description, else the API's ``Description``: the one function of ``airportsapi`` has neither),
  ``documentation`` the function's entry of ``Function_Description``, which is its block of the API's
  ``NLDocumentation`` (what ToolAlpaca's agent reads: description, parameters and output).
  ``Function_Description``'s ``components`` entry (the output schemas) is not a function. The simulated
  APIs' ``Functions`` text, the specification their OpenAPI documents were generated from, restates the
  same descriptions and parameters and the real APIs have none, so it is left out.
* **Recovered functions**: the OpenAPI document of ``AviationAPI`` nests five path items inside
  ``/preferred-routes`` (``/preferred-routes/search``, ``/vatsim/pilots``, ``/vatsim/controllers``,
  ``/weather/metar``, ``/weather/taf``), so ToolAlpaca's projection missed them, yet six of the API's
  instructions are solved by calling them, under exactly the names the naming rule gives
  (``weather_metar_get``, ...). They are real operations of the API: they are added as tools, their
  ``documentation`` written from the operation in the ``NLDocumentation`` layout (summary, then
  ``Parameters:`` with ``Required. <type>. <description>``, then ``Output:``), and listed in
  ``meta["recovered_functions"]``. Any other operation of a document that the projection lacks would be
  recovered the same way (none is).
* **Queries**: every instruction (stripped of surrounding white space), id ``toolalpaca_<api>_<index>``,
  ``index`` its 0-based position in the API's ``Instructions``. Reference: the distinct functions its
  ``Golden_Answers`` entry calls, in call order. Golden answers are lists of ``{"Action",
  "Action_Input"}`` steps (JSON lists in the snapshot, with ``Action_Input`` a string the reference does
  not need); one stored as a string is read as a Python literal (``ast.literal_eval``, never ``eval``). Two
  kinds of step are not plain function calls and are handled as the source intends: ``getDetails`` is
  ToolAlpaca's pseudo-action for asking the user for missing details (its input is a ``Question``), not a
  function of the API, so it is no tool and is left out of the reference (counted in
  ``meta["calls"]["get_details"]``, 8 steps); an ``[Optional]`` prefix marks a call made only if a
  condition the instruction states holds (one step, ``[Optional]updateUserProfile``): the function is kept
  in the reference without the prefix, since the instruction asks for it (counted in
  ``meta["calls"]["optional"]``). Any other action that is not a function of the API, an unparsable golden
  answer, or instructions and golden answers of different lengths are errors naming the file and record.
* **Instruction**: ToolRet gives each query an instruction written by an LLM for that query ("Given a
  `<task>` task, retrieve tools that ...") and retrievers read instruction + query. The snapshot holds no
  instruction of a ``customized`` subset, so one fixed instruction in that template is written here for
  every query (:data:`INSTRUCTION`); scores with instructions are therefore not comparable to ToolRet's
  own for this subset.

All queries are kept (no draw): 214 queries (178 with one reference function, 36 with two) over 99 tools
(45 functions of the real APIs, 5 of them recovered; 54 of the simulated ones); 6 functions are called by
no golden answer and stay in the pool as distractors. Benchmark name: ``customized/toolalpaca``. Derived
data are Apache-2.0 as well.
"""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolex import keys
from toolex.data.checksum import files_checksum
from toolex.data.readers import read_records
from toolex.data.records import Benchmark, Query, Tool
from toolex.errors import InputError

#: The evaluation sets, by the name noted in ``subset``.
HALVES = {"real": "eval_real.json", "simulated": "eval_simulated.json"}
CATEGORY = "customized"
#: ToolAlpaca's pseudo-action that asks the user for missing details: not a function of the API.
GET_DETAILS = "getDetails"
OPTIONAL = "[Optional]"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
#: The instruction of every query, in the template of ToolRet's per-query instructions.
INSTRUCTION = ("Given a `web API request` task, retrieve tools that can carry out the user's request by "
               "processing the inputs it provides and returning the information or action it asks for.")
LICENCE = "Apache-2.0"
ATTRIBUTION = ("ToolAlpaca (Tang et al. 2023), Apache-2.0, tangqiaoyu/ToolAlpaca @ 18906999; queries and "
               "tools derived from data/eval_real.json and data/eval_simulated.json")
REQUIRED = ("Name", "Description", "Documentation", "Function_Description", "Function_Projection",
            "Instructions", "Golden_Answers")


def api_part(name: str) -> str:
    """The API name in ids: lower case, accents dropped, other non-alphanumeric runs -> ``-``."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return keys.slug(ascii_name, "", "-", lower=True)


def tool_id(api: str, function: str) -> str:
    return f"toolalpaca_{api_part(api)}_{function}"


def function_name(path: str, method: str, operation: Mapping[str, Any]) -> str:
    """ToolAlpaca's name of an operation: its ``operationId``, else the path without braces, ``/`` -> ``_``,
    then ``_<method>``."""
    operation_id = operation.get("operationId")
    if isinstance(operation_id, str) and operation_id.strip():
        return operation_id.strip()
    return f"{re.sub(r'[{}]', '', path).strip('/').replace('/', '_')}_{method}"


def operations(paths: Mapping[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """Function name -> (path, method, operation) of an OpenAPI ``paths`` object, including path items
    nested by mistake inside another path item (a key starting with ``/``)."""
    out: dict[str, tuple[str, str, dict[str, Any]]] = {}

    def visit(path: str, item: Any) -> None:
        if not isinstance(item, dict):
            return
        for key, value in item.items():
            if key in METHODS and isinstance(value, dict):
                out.setdefault(function_name(path, key, value), (path, key, value))
            elif isinstance(key, str) and key.startswith("/"):
                visit(key, value)

    for path, item in paths.items():
        visit(path, item)
    return out


def _type(schema: Any) -> str:
    if not isinstance(schema, dict):
        return ""
    if schema.get("type") == "array":
        return f"Array[{_type(schema.get('items')) or 'any'}]"
    return str(schema.get("type") or "")


def nl_documentation(operation: Mapping[str, Any]) -> str:
    """An operation written in the layout of ToolAlpaca's ``NLDocumentation`` (summary, parameters,
    output), for the functions its projection missed."""
    parameters = {}
    for p in operation.get("parameters") or []:
        if isinstance(p, dict) and p.get("name"):
            parts = ["Required."] if p.get("required") else []
            parts += [f"{_type(p.get('schema'))}.", str(p.get("description") or "").strip()]
            parameters[str(p["name"])] = " ".join(x for x in parts if x).strip()
    ok = (operation.get("responses") or {}).get("200") or {}
    output = str(ok.get("description") or "").strip().rstrip(".")
    summary = str(operation.get("summary") or operation.get("description") or "").strip()
    return f"{summary}\nParameters: {json.dumps(parameters, ensure_ascii=False)}\nOutput: {output}."


def api_tools(api: Mapping[str, Any], subset: str, path: Path,
              record: str) -> tuple[dict[str, Tool], list[str]]:
    """The tools of one API record and the ids of those recovered from its OpenAPI document."""
    name = str(api["Name"])
    try:
        document = json.loads(api["Documentation"]) if isinstance(api["Documentation"], str) \
            else api["Documentation"]
    except json.JSONDecodeError as exc:
        raise InputError(path, f"'Documentation' is not valid JSON: {exc}", record=record) from None
    if not isinstance(document, dict) or not isinstance(document.get("paths"), dict):
        raise InputError(path, "'Documentation' is not an OpenAPI document with 'paths'", record=record)
    projection, described = api["Function_Projection"], api["Function_Description"]
    if not isinstance(projection, dict) or not projection or not isinstance(described, dict):
        raise InputError(path, "'Function_Projection' and 'Function_Description' must be objects",
                         record=record)
    found = operations(document["paths"])
    tools: dict[str, Tool] = {}
    recovered: list[str] = []
    for function in [*projection, *(f for f in found if f not in projection)]:
        if function in projection:
            target = projection[function]
            if not (isinstance(target, list) and len(target) == 2
                    and all(isinstance(x, str) for x in target)):
                raise InputError(path, f"projection of {function!r} is not [path, method]", record=record)
            if not isinstance(described.get(function), str):
                raise InputError(path, f"function {function!r} has no 'Function_Description'", record=record)
            op_path, method = target
            operation = found.get(function, ("", "", {}))[2]
            text = described[function].strip()
        else:
            op_path, method, operation = found[function]
            text = nl_documentation(operation)
            recovered.append(tool_id(name, function))
        documentation = {
            "name": function,
            "description": str(operation.get("summary") or operation.get("description")
                                or api["Description"]).strip(),
            "api": name,
            "api_description": str(api["Description"]).strip(),
            "path": op_path,
            "method": method,
            "documentation": text,
        }
        tid = tool_id(name, function)
        tools[tid] = Tool(tid, function, documentation, subset=subset, category=CATEGORY, platform=name)
    return tools, recovered


def golden_calls(answer: Any, path: Path, record: str) -> list[str]:
    """The actions of one golden answer (a list of steps, or its Python-literal string)."""
    if isinstance(answer, str):
        try:
            answer = ast.literal_eval(answer)
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            raise InputError(path, f"golden answer is not a Python literal ({exc!r})",
                             record=record) from None
    if not isinstance(answer, list) or not answer:
        raise InputError(path, "golden answer must be a non-empty list of steps", record=record)
    actions = []
    for step in answer:
        action = step.get("Action") if isinstance(step, dict) else None
        if not isinstance(action, str) or not action.strip():
            raise InputError(path, "a golden answer step needs an 'Action'", record=record)
        actions.append(action.strip())
    return actions


@dataclass
class Counts:
    """What one evaluation file held: APIs, instructions, the golden-answer steps that are not plain calls
    (``getDetails``, ``[Optional]``) and the ids of the recovered functions."""

    apis: int = 0
    instructions: int = 0
    get_details: int = 0
    optional: int = 0
    recovered: list[str] = field(default_factory=list)


def load_half(path: Path, subset: str) -> tuple[dict[str, Tool], list[Query], Counts]:
    """The tools, queries and counts of one evaluation file."""
    if not path.exists():
        raise InputError(path, "ToolAlpaca evaluation file not found")
    tools: dict[str, Tool] = {}
    queries: list[Query] = []
    counts = Counts()
    slugs: dict[str, str] = {}
    for i, api in enumerate(read_records(path)):
        missing = [k for k in REQUIRED if k not in api]
        if missing:
            raise InputError(path, f"an API needs {', '.join(missing)}", record=i)
        name = str(api["Name"]).strip()
        if not api_part(name):
            raise InputError(path, f"API name {api['Name']!r} gives an empty id", record=i)
        api_record = f"{i} ({name})"
        if api_part(name) in slugs:
            raise InputError(path, f"API {name!r} and API {slugs[api_part(name)]!r} share the id "
                                   f"{api_part(name)!r}",
                             record=api_record)
        slugs[api_part(name)] = name
        own, recovered = api_tools(api, subset, path, api_record)
        instructions, answers = api["Instructions"], api["Golden_Answers"]
        if not isinstance(instructions, list) or not isinstance(answers, list):
            raise InputError(path, "'Instructions' and 'Golden_Answers' must be lists", record=api_record)
        if len(instructions) != len(answers):
            raise InputError(path, f"{len(instructions)} instructions but {len(answers)} golden answers",
                             record=api_record)
        for j, (text, answer) in enumerate(zip(instructions, answers)):
            record = f"{api_record}, instruction {j}"
            if not isinstance(text, str) or not text.strip():
                raise InputError(path, "empty instruction", record=record)
            reference: list[str] = []
            for action in golden_calls(answer, path, record):
                if action == GET_DETAILS:
                    counts.get_details += 1
                    continue
                if action.startswith(OPTIONAL):
                    counts.optional += 1
                    action = action[len(OPTIONAL):].strip()
                tid = tool_id(name, action)
                if tid not in own:
                    raise InputError(path, f"golden answer calls {action!r}, not a function of {name}",
                                     record=record)
                if tid not in reference:
                    reference.append(tid)
            queries.append(Query(f"toolalpaca_{api_part(name)}_{j}", text.strip(), tuple(reference),
                                 INSTRUCTION, CATEGORY, subset))
        tools.update(own)
        counts.apis += 1
        counts.instructions += len(instructions)
        counts.recovered += recovered
    return tools, queries, counts


def load_toolalpaca(folder: str | Path) -> Benchmark:
    """Both ToolAlpaca evaluation sets: every instruction over every API function."""
    folder = Path(folder)
    tools: dict[str, Tool] = {}
    queries: list[Query] = []
    meta: dict[str, Any] = {"apis": {}, "instructions": {}, "functions": {},
                            "calls": {"get_details": 0, "optional": 0}, "recovered_functions": []}
    for half, filename in HALVES.items():
        path = folder / filename
        own, found, counts = load_half(path, f"toolalpaca/{half}")
        clash = sorted(own.keys() & tools.keys()) or sorted({q.id for q in found} & {q.id for q in queries})
        if clash:
            raise InputError(path, f"id {clash[0]!r} is given in both evaluation files")
        tools.update(own)
        queries.extend(found)
        meta["apis"][half] = counts.apis
        meta["instructions"][half] = counts.instructions
        meta["functions"][half] = len(own)
        meta["calls"]["get_details"] += counts.get_details
        meta["calls"]["optional"] += counts.optional
        meta["recovered_functions"] += counts.recovered
    sources = [folder / filename for filename in HALVES.values()]
    return Benchmark("customized/toolalpaca", queries, tools, files_checksum(sources),
                     tuple(str(s) for s in sources),
                     {**meta, "instruction": INSTRUCTION, "licence": LICENCE, "attribution": ATTRIBUTION})
