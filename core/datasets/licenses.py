"""The licenses a researcher can publish a dataset under: a short list of the usual
open data licenses, each with its SPDX id, its address and its Hugging Face card id."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class License:
    spdx: str
    title: str
    url: str
    hf: str  # the id the Hugging Face dataset card's `license:` field takes


LICENSES = {
    lic.spdx: lic
    for lic in (
        License("CC-BY-4.0", "CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/", "cc-by-4.0"),
        License("CC-BY-SA-4.0", "CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/", "cc-by-sa-4.0"),
        License("CC-BY-NC-4.0", "CC BY-NC 4.0", "https://creativecommons.org/licenses/by-nc/4.0/", "cc-by-nc-4.0"),
        License("CC-BY-NC-SA-4.0", "CC BY-NC-SA 4.0", "https://creativecommons.org/licenses/by-nc-sa/4.0/", "cc-by-nc-sa-4.0"),
        License("CC0-1.0", "CC0 1.0", "https://creativecommons.org/publicdomain/zero/1.0/", "cc0-1.0"),
        License("ODC-By-1.0", "ODC-By 1.0", "https://opendatacommons.org/licenses/by/1-0/", "odc-by"),
        License("ODbL-1.0", "ODbL 1.0", "https://opendatacommons.org/licenses/odbl/1-0/", "odbl"),
    )
}  # fmt: skip
DEFAULT_LICENSE = "CC-BY-4.0"
LICENSE_CHOICES = [(lic.spdx, f"{lic.title} ({lic.spdx})") for lic in LICENSES.values()]


def license_info(spdx: str) -> License:
    return LICENSES.get(spdx) or LICENSES[DEFAULT_LICENSE]
