"""The LLM generator: per-class prompt templates, structured replies, cached requests.

Templates ship as ``perturb/generate/templates/<class>.txt`` with a ``[system]`` and a ``[user]``
section; ``$task`` becomes one JSON line with the prompt, its protected values and slots,
so the model sees exactly what must survive. The reply must be
``{"variants": [{"text": ..., ...}]}`` (validated with pydantic; extra keys per class become
the candidate's details); anything else is retried as malformed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import string
from dataclasses import dataclass
from importlib import resources
from typing import Any

from openai import AsyncOpenAI
from pydantic import BaseModel, ConfigDict, Field

from perturb.generate.perturbations import CLASSES, TaskContext
from perturb.io.hashing import content_hash
from perturb.io.llm import LLMSettings, ResponseCache, chat_with_retries
from perturb.io.secrets import redact
from perturb.tasks import task_hash


class LLMVariant(BaseModel):
    """One proposed variant; extra keys are class details (slot, wrong, final, register...)."""

    model_config = ConfigDict(extra="allow")
    text: str = Field(min_length=1)


class LLMReply(BaseModel):
    """The structured reply every template asks for."""

    variants: list[LLMVariant] = Field(min_length=1)


@dataclass(frozen=True)
class Template:
    name: str
    system: str
    user: str
    sha256: str


@functools.cache
def template(cls: str) -> Template:
    """The template of class ``cls``: its spec's own, else the shipped one."""
    own = CLASSES.get(cls).template
    if own is not None:
        raw = own.encode("utf-8")
    else:
        raw = resources.files("perturb.generate").joinpath(f"templates/{cls}.txt").read_bytes()
    text = raw.decode("utf-8")
    if "[system]\n" not in text or "\n[user]\n" not in text:
        raise ValueError(f"template {cls}.txt needs a [system] and a [user] section")
    system, user = text.split("[system]\n", 1)[1].split("\n[user]\n", 1)
    return Template(cls, system.strip(), user.strip(), "sha256:" + hashlib.sha256(raw).hexdigest())


def _strip_fences(content: str) -> str:
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        if text.rstrip().endswith("```"):
            text = text.rstrip()[:-3]
    return text.strip()


def parse_reply(content: str | None) -> LLMReply:
    """Validate a reply's content (code fences tolerated); raises ValueError when malformed."""
    if content is None:
        raise ValueError("empty reply (expected a JSON object with 'variants')")
    return LLMReply.model_validate_json(_strip_fences(content))


def _validate(completion: Any) -> None:
    parse_reply(completion.choices[0].message.content)


def render(
    ctx: TaskContext, cls: str, level: float, index: int
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """The chat messages for one request, and the class details fixed before asking."""
    spec = CLASSES.get(cls)
    tpl = template(cls)
    task = ctx.task
    payload: dict[str, Any] = {
        "prompt": task.prompt,
        "protected": list(ctx.protected),
        "slots": task.slots,
    }
    fixed: dict[str, Any] = {}
    subs = {
        "task": json.dumps(payload, ensure_ascii=False),
        "level": f"{level:g}",
        "epsilon": spec.epsilon,
        "correctable": "",
        "register": "",
        "register_description": "",
    }
    if spec.llm_request is not None:
        extra, fixed = spec.llm_request(ctx, index)
        subs.update(extra)
    user = string.Template(tpl.user).safe_substitute(subs)
    messages = [{"role": "system", "content": tpl.system}, {"role": "user", "content": user}]
    return messages, fixed


def request_seed(seed: int, task_id: str, cls: str, level: float, index: int, attempt: int) -> int:
    """The ``seed`` sent to the server for one request (31-bit, derived from its key)."""
    digest = hashlib.sha256(
        json.dumps([seed, task_id, cls, level, index, attempt]).encode("utf-8")
    ).hexdigest()
    return int(digest[:8], 16) & 0x7FFFFFFF


@dataclass
class LLMResult:
    """What one request produced (from the server or from the cache)."""

    variants: list[LLMVariant]
    fixed: dict[str, Any]
    model: str
    system_fingerprint: str | None
    retries: int
    cached: bool


async def request_variants(
    client: AsyncOpenAI,
    settings: LLMSettings,
    cache: ResponseCache,
    ctx: TaskContext,
    cls: str,
    level: float,
    index: int,
    attempt: int,
    seed: int,
) -> LLMResult:
    """Ask for one variant of ``(task, class, level, index)``; served from the cache when the
    same request was answered before."""
    messages, fixed = render(ctx, cls, level, index)
    tpl = template(cls)
    fields = {
        "model": settings.model,
        "template_sha256": tpl.sha256,
        "task_id": ctx.task.id,
        "task_sha256": task_hash(ctx.task),
        "class": cls,
        "level": level,
        "seed": seed,
        "index": index,
        "attempt": attempt,
        "temperature": settings.temperature,
    }
    key = cache.key(fields)
    record = cache.get(key)
    if record is not None:
        try:
            reply = parse_reply(record["content"])
        except ValueError:
            record = None
        else:
            return LLMResult(
                reply.variants,
                fixed,
                str(record.get("model") or settings.model),
                record.get("system_fingerprint"),
                int(record.get("retries", 0)),
                True,
            )
    completion, retries = await chat_with_retries(
        client,
        model=settings.model,
        messages=messages,
        temperature=settings.temperature,
        seed=request_seed(seed, ctx.task.id, cls, level, index, attempt),
        max_retries=settings.max_retries,
        timeout=settings.timeout,
        response_format={"type": "json_object"} if settings.json_mode else None,
        validate=_validate,
        max_wait=settings.max_wait,
        base_delay=settings.base_delay,
    )
    # A server that echoes the key (a logging proxy, a model shown it) must not put it in a
    # candidate or the cache: the key never reaches a file perturb writes.
    secrets = [getattr(client, "api_key", None)]
    content = redact(completion.choices[0].message.content or "", secrets, "[REDACTED]")
    fingerprint = completion.system_fingerprint
    if fingerprint is not None:
        fingerprint = redact(str(fingerprint), secrets, "[REDACTED]")
    reply = parse_reply(content)
    cache.put(
        key,
        {
            "request": fields,
            "request_sha256": content_hash(messages),
            "content": content,
            "model": redact(str(completion.model), secrets, "[REDACTED]"),
            "system_fingerprint": fingerprint,
            "retries": retries,
        },
    )
    return LLMResult(reply.variants, fixed, settings.model, fingerprint, retries, False)


def variant_details(ctx: TaskContext, cls: str, variant: LLMVariant, fixed: dict[str, Any]) -> dict[str, Any]:
    """Class details of an LLM variant: the model's extra keys plus what was fixed before
    asking; for ``self_correction`` a ``corrections`` list (inferred from the text when the
    model did not name the slot, wrong and final values)."""
    scalar = (str, int, float, bool, list)
    extra = {k: v for k, v in (variant.model_extra or {}).items() if isinstance(v, scalar)}
    details: dict[str, Any] = {**extra, **fixed}
    spec = CLASSES.get(cls)
    if spec.llm_details is not None:
        details = spec.llm_details(ctx, variant.text, details)
    return details
