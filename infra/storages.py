"""Files on S3 (MinIO on the one-box stack), as django-compressor and browsers need them.

The settings that choose these are in ``config/settings/production.py`` (when
``AWS_STORAGE_BUCKET_NAME`` is set). The media bucket is django-storages'
``S3Storage`` with one change: its presigned links name ``AWS_S3_PUBLIC_URL``
when browsers reach the object store through a proxy (the stack's nginx), not
at the endpoint the app uses. The link is signed for the endpoint, and the
proxy passes it on unchanged with the endpoint's Host, so the signature holds.

What django-storages' own ``S3ManifestStaticStorage`` lacks, and how it is handled:

- django-compressor reads the files a ``{% compress %}`` block names from the
  local file system (``COMPRESS_ROOT``, which is ``STATIC_ROOT``): a remote
  storage has no ``path()``. So every file these storages send to S3 is also
  written to ``STATIC_ROOT`` (django-compressor's "remote storages" recipe),
  hashed names included, and a file counts as present only when both copies
  are: a lost local folder is filled again by the next ``collectstatic``.
- ``ManifestFilesMixin`` reads its manifest (``staticfiles.json``) when a
  process first renders ``{% static %}``; read from S3, a page would fail while
  S3 is away. It is kept in the local copy, like compressor's offline manifest
  (``STATIC_ROOT/CACHE/manifest.json``), so rendering a page never asks S3.
- Only names that carry a content hash (Django's and compressor's 12 hex digits)
  are cached for a year as ``immutable``; the unhashed originals that
  ``collectstatic`` also uploads get a short lifetime, since their content may
  change under the same name.
"""
import re
from typing import IO, Any

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin
from django.core.files.storage import FileSystemStorage
from storages.backends.s3 import S3Storage

HASHED_NAME = re.compile(r"\.[0-9a-f]{12}\.[^./]+$")
IMMUTABLE = "public, max-age=31536000, immutable"
SHORT_LIVED = "public, max-age=300"


class MediaS3Storage(S3Storage):
    """Private files (uploads, slips, exports): presigned links, at the address browsers use."""

    def url(self, name: str, parameters: dict[str, Any] | None = None, expire: int | None = None,
            http_method: str | None = None) -> str:
        url = super().url(name, parameters=parameters, expire=expire, http_method=http_method)
        # Settings production.py sets with the bucket; the plugin reads the test settings, which have none.
        endpoint, public = settings.AWS_S3_ENDPOINT_URL, settings.AWS_S3_PUBLIC_URL  # type: ignore[misc]
        if endpoint and public and public != endpoint and url.startswith(endpoint + "/"):
            return public + url[len(endpoint):]
        return url


class StaticS3Storage(S3Storage):
    """Public static files on S3, each one also written to STATIC_ROOT (django-compressor reads it there)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.local_copy = FileSystemStorage(location=settings.STATIC_ROOT, allow_overwrite=True)

    def get_object_parameters(self, name: str) -> dict[str, Any]:
        parameters = super().get_object_parameters(name)
        parameters.setdefault("CacheControl", IMMUTABLE if HASHED_NAME.search(name) else SHORT_LIVED)
        return parameters

    def _save(self, name: str, content: IO[Any]) -> str:
        name = super()._save(name, content)
        content.seek(0)
        self.local_copy._save(name, content)  # type: ignore[attr-defined]  # Django's, missing from django-stubs
        return name

    def delete(self, name: str) -> None:
        super().delete(name)
        self.local_copy.delete(name)

    def exists(self, name: str) -> bool:
        return self.local_copy.exists(name) and super().exists(name)


class ManifestStaticS3Storage(ManifestFilesMixin, StaticS3Storage):
    """``collectstatic``'s storage: hashed names on S3, the manifest kept in STATIC_ROOT only."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(manifest_storage=FileSystemStorage(location=settings.STATIC_ROOT), **kwargs)
