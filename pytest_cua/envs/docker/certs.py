"""TLS material for a Docker daemon reached over TCP: a private CA, a server certificate and a client
certificate, laid out as dockerd and the docker SDK take them.

    python3 -m pytest_cua.envs.docker.certs DIR [--host NAME]

writes ``DIR/ca.pem``, ``DIR/ca-key.pem``, ``DIR/server.pem``, ``DIR/server-key.pem`` (for dockerd's
``--tlscacert/--tlscert/--tlskey``; the CA and server certificate come from ``pytest_cua.orgs.localorg.tls``) and
``DIR/client/{ca.pem,cert.pem,key.pem}``: the ``DOCKER_CERT_PATH`` layout that ``--cua-docker-tls-dir`` reads.
Idempotent: existing files are kept while they are valid. Private keys get mode 0600.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
from pathlib import Path
from typing import cast

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from pytest_cua.orgs.localorg.tls import TlsFiles, _key_pem, _write_private, ensure_tls

CLIENT_DIR = "client"


def _client_valid(cert_path: Path, ca_path: Path) -> bool:
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        ca = x509.load_pem_x509_certificate(ca_path.read_bytes())
    except (OSError, ValueError):
        return False
    return (cert.issuer == ca.subject
            and cert.not_valid_after_utc > dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1))


def ensure_docker_tls(directory: str | Path, host: str = "127.0.0.1") -> tuple[TlsFiles, Path]:
    """The daemon's files (CA, server certificate for 127.0.0.1, localhost and ``host``) and the client
    certificate folder (``ca.pem``, ``cert.pem``, ``key.pem``)."""
    base = Path(directory)
    files = ensure_tls(base, host)
    client = base / CLIENT_DIR
    client.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = client / "cert.pem", client / "key.pem"
    if not (key_path.exists() and _client_valid(cert_path, files.ca_cert)):
        ca_cert = x509.load_pem_x509_certificate(files.ca_cert.read_bytes())
        ca_key = cast(ec.EllipticCurvePrivateKey,
                      serialization.load_pem_private_key((base / "ca-key.pem").read_bytes(), password=None))
        key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.timezone.utc)
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pytest-cua docker client")]))
            .issuer_name(ca_cert.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=825))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=False, key_cert_sign=False,
                                         crl_sign=False, content_commitment=False, data_encipherment=False,
                                         key_agreement=True, encipher_only=False, decipher_only=False),
                           critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        _write_private(key_path, _key_pem(key))
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    shutil.copyfile(files.ca_cert, client / "ca.pem")
    return files, client


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m pytest_cua.envs.docker.certs", description=__doc__.split("\n\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--host", default="127.0.0.1", help="a further name or address of the daemon")
    args = parser.parse_args(argv)
    files, client = ensure_docker_tls(args.directory, args.host)
    print(f"ca {files.ca_cert} server {files.server_cert} client {client}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
