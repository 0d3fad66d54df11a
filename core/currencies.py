"""ISO 4217 currency codes: the pay of an annotation project is in one of them.

The active alphabetic codes of ISO 4217 (list one, 2024), without the funds codes, precious
metals and testing codes (XXX, XTS, XAU ...) that no one is paid in.
"""

from __future__ import annotations

_CODES = """
    AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN
    BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD
    FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY
    KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP
    MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR
    RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT
    TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER
    ZAR ZMW ZWG
"""
CURRENCIES = frozenset(_CODES.split())


def currency_error(code) -> str | None:
    """Why ``code`` is not a currency a project can pay in, or None when it is."""
    if not isinstance(code, str) or len(code) != 3 or not code.isalpha() or not code.isupper():
        return "Give a three-letter ISO 4217 currency code in capitals, such as USD, EUR or GBP."
    if code not in CURRENCIES:
        return f"{code} is not an ISO 4217 currency code (such as USD, EUR or GBP)."
    return None
