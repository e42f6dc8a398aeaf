"""Email (.eml, RFC 822/MIME) with the standard library's parser: the text body
(plain text preferred, else HTML) is one document whose title is the subject and
whose metadata holds the headers; each attachment is read by the loader for its
file type as a document of its own, ``<mail>#<file name>``."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path, PurePath
from typing import Any

from ...errors import LoaderError
from ...models import Block, Document
from .options import LoadOptions
from .records import record_id_problem

MAX_ATTACHMENTS = 100
MAX_DEPTH = 3  # a mail attached to a mail attached to a mail…
HEADERS = ("from", "to", "cc", "date", "message-id", "in-reply-to")


class EmlLoader:
    name = "eml"
    extensions = (".eml",)
    media_type = "message/rfc822"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        return self._load(data, source, options, depth=0)

    def _load(self, data: bytes, source: str, options: LoadOptions | None, depth: int) -> list[Document | LoaderError]:
        if depth > MAX_DEPTH:
            raise LoaderError(source, f"emails attached more than {MAX_DEPTH} deep; refused")
        message = BytesParser(policy=policy.default).parsebytes(data)
        if not isinstance(message, EmailMessage) or not (message.keys() or message.get_payload()):
            raise LoaderError(source, "not an email (no headers)")
        subject = _header(message, "subject")
        metadata: dict[str, Any] = {key.replace("-", "_"): value for key in HEADERS if (value := _header(message, key))}
        out: list[Document | LoaderError] = []
        body = _body(message, source)
        attachments = self._attachments(message, source, options, depth, subject)
        if body:
            metadata["attachments"] = sum(isinstance(a, Document) for a in attachments)
            out.append(Document(source=source, blocks=[Block(text=body)], title=subject, media_type=self.media_type,
                                metadata=metadata))
        out.extend(attachments)
        if not out:
            raise LoaderError(source, "no text in the email and no attachments")
        return out

    def _attachments(self, message: EmailMessage, source: str, options: LoadOptions | None, depth: int,
                     subject: str | None) -> list[Document | LoaderError]:
        from . import loader_for

        out: list[Document | LoaderError] = []
        seen: set[str] = set()
        for index, part in enumerate(message.iter_attachments(), start=1):
            name = _attachment_name(part, index, seen)
            where = f"{source}#{name}"
            if index > MAX_ATTACHMENTS:
                out.append(LoaderError(source, f"more than {MAX_ATTACHMENTS} attachments; the rest skipped"))
                break
            try:
                payload = _payload(part)
                if not payload:
                    raise LoaderError(where, "empty attachment")
                if name.lower().endswith(".eml"):
                    items = self._load(payload, where, options, depth + 1)
                else:
                    items = loader_for(Path(name), payload[:16], where).load(payload, where, options=options)
            except LoaderError as exc:
                out.append(exc)
                continue
            for item in items:
                if isinstance(item, Document):
                    item.metadata.setdefault("attachment_of", source)
                    if subject:
                        item.metadata.setdefault("email_subject", subject)
                out.append(item)
        return out


def _header(message: EmailMessage, key: str) -> str | None:
    try:
        value = message.get(key)
    except (ValueError, TypeError, IndexError):  # a malformed header is left out, not fatal
        return None
    if value is None:
        return None
    if key == "date" and getattr(value, "datetime", None) is not None:
        return value.datetime.isoformat()
    text = " ".join(str(value).split())
    return text or None


def _body(message: EmailMessage, source: str) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, ValueError, AssertionError) as exc:  # unknown charset, broken encoding
        raise LoaderError(source, f"unreadable email body: {exc}") from exc
    if part.get_content_subtype() == "html":
        from .html import HtmlLoader

        try:
            (document,) = HtmlLoader().load(str(content).encode("utf-8"), source)
        except LoaderError:
            return ""
        if isinstance(document, LoaderError):  # an unreadable body, as when raised
            return ""
        return document.text.strip()
    return str(content).strip()


def _payload(part: Any) -> bytes:
    payload = part.get_payload(decode=True)
    if payload is None and part.get_content_type() == "message/rfc822":  # an attached email: its bytes
        inner = part.get_payload()
        payload = inner[0].as_bytes() if isinstance(inner, list) and inner else b""
    return payload or b""


def _attachment_name(part: Any, index: int, seen: set[str]) -> str:
    """A file name usable in a source: the attachment's own base name when it is
    printable, else ``attachment-<n>``; made unique within the email."""
    raw = part.get_filename() or ""
    name = PurePath(raw.replace("\\", "/")).name.strip()
    if part.get_content_type() == "message/rfc822" and not name:
        name = f"attachment-{index}.eml"
    if not name or record_id_problem(name):
        suffix = PurePath(name).suffix if name and not record_id_problem(PurePath(name).suffix or "x") else ""
        name = f"attachment-{index}{suffix}"
    base, n = name, 2
    while name in seen:
        stem, dot, ext = base.rpartition(".")
        name = f"{stem} ({n}).{ext}" if dot else f"{base} ({n})"
        n += 1
    seen.add(name)
    return name
