"""AWS Secrets Manager's CreateSecret through Debian's python3-boto3, unmodified, as a long-lived
service would call it: one boto3 client per instance, shared by every operation's thread
(botocore clients are thread-safe), so that its retry mode's state — standard mode's retry
quota, adaptive mode's client-side rate limiter — lives across calls, as in production.
The session contract (docs/sessions.md): operations on standard input, tagged outcome lines on
standard output, served by embed/python/retryproof_session.py's serve().

boto3 is configured only as its documentation shows: endpoint_url, and the retry mode from
AWS_RETRY_MODE (legacy, the default; standard; adaptive). The token is derived from the
operation's id, as in client.py, so that a rerun after a crash sends the same one.
"""
import hashlib
import json
import os
import sys

import boto3
import botocore.exceptions

try:
    from retryproof_session import serve
except ImportError:  # run from the source tree, without `pip install embed/python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "embed", "python"))
    from retryproof_session import serve

client = boto3.client(
    "secretsmanager",
    endpoint_url=os.environ["RETRYPROOF_BASE_URL"],
    region_name="us-east-1",
    aws_access_key_id="retryproof",
    aws_secret_access_key="retryproof",
)
RETRYABLE = ("ThrottlingException", "ServiceUnavailable", "InternalServiceError")


def create(operation_id, payload):
    token = hashlib.sha256(operation_id.encode()).hexdigest()[:32]
    try:
        created = client.create_secret(
            Name=payload["orderId"],
            ClientRequestToken=token,
            SecretString=json.dumps({"paymentId": payload.get("paymentId"),
                                     "amount": payload.get("amount")}),
        )
        return "succeeded", created["ARN"]
    except botocore.exceptions.ClientError as error:
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        code = error.response.get("Error", {}).get("Code", "")
        if status is not None and 400 <= status < 500 and code not in RETRYABLE:
            return "failed", f"{status} {code}"
        # A 5xx or a throttle after botocore's own retries: it may have committed.
        return "unknown", f"{status} {code}"
    except botocore.exceptions.BotoCoreError as error:  # no answer: a drop, a reset, a timeout
        return "unknown", type(error).__name__


if __name__ == "__main__":
    sys.exit(serve(create))
