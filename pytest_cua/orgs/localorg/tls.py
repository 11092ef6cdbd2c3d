"""TLS material of an org data directory: a private CA and a server certificate it signs.

Files (created once per data directory, private keys with mode 0600): ``ca.pem``, ``ca-key.pem``,
``server.pem``, ``server-key.pem``. Clients trust ``ca.pem`` (``requests.Session().verify = ca_path``).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class TlsFiles:
    """Paths of the CA certificate and of the server certificate and key."""

    ca_cert: Path
    server_cert: Path
    server_key: Path


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.chmod(path, 0o600)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _names(hosts: list[str]) -> list[x509.GeneralName]:
    out: list[x509.GeneralName] = []
    for host in hosts:
        try:
            out.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            out.append(x509.DNSName(host))
    return out


def _server_hosts(host: str) -> list[str]:
    hosts = ["127.0.0.1", "localhost"]
    if host and host not in hosts and host not in ("0.0.0.0", "::", ""):
        hosts.append(host)
    return hosts


def _covers(cert_path: Path, hosts: list[str]) -> bool:
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, x509.ExtensionNotFound):
        return False
    have = {str(v) for v in san.get_values_for_type(x509.IPAddress)} | set(san.get_values_for_type(x509.DNSName))
    not_after = cert.not_valid_after_utc
    return all(h in have for h in hosts) and not_after > dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1)


def ensure_tls(data_dir: str | Path, host: str = "127.0.0.1") -> TlsFiles:
    """Create (or reuse) the CA and a server certificate for 127.0.0.1, localhost and ``host``."""
    base = Path(data_dir)
    base.mkdir(parents=True, exist_ok=True)
    files = TlsFiles(base / "ca.pem", base / "server.pem", base / "server-key.pem")
    ca_key_path = base / "ca-key.pem"
    now = dt.datetime.now(dt.timezone.utc)
    if files.ca_cert.exists() and ca_key_path.exists():
        ca_cert = x509.load_pem_x509_certificate(files.ca_cert.read_bytes())
        # the key this module wrote (below): an EC key
        ca_key = cast(ec.EllipticCurvePrivateKey,
                      serialization.load_pem_private_key(ca_key_path.read_bytes(), password=None))
    else:
        ca_key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pytest-cua local org CA")])
        ski = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
        ca_cert = (
            x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(ski, critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        _write_private(ca_key_path, _key_pem(ca_key))
        files.ca_cert.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
        for stale in (files.server_cert, files.server_key):
            stale.unlink(missing_ok=True)
    hosts = _server_hosts(host)
    if files.server_cert.exists() and files.server_key.exists() and _covers(files.server_cert, hosts):
        return files
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0])]))
        .issuer_name(ca_cert.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=825))
        .add_extension(x509.SubjectAlternativeName(_names(hosts)), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=False, key_cert_sign=False,
                                     crl_sign=False, content_commitment=False, data_encipherment=False,
                                     key_agreement=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    _write_private(files.server_key, _key_pem(key))
    files.server_cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return files


def server_context(files: TlsFiles) -> ssl.SSLContext:
    """An SSL context serving the server certificate (TLS 1.2 or newer)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(str(files.server_cert), str(files.server_key))
    return ctx
