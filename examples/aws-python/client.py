"""AWS Secrets Manager's CreateSecret through Debian's python3-boto3, unmodified: the client
retryproof runs (docs/sdks.md). boto3 is configured only as its documentation shows, by
endpoint_url; its retries are its own (AWS_RETRY_MODE: legacy, the default, or standard).

The token is the operation's id, derived once: botocore would fill ClientRequestToken itself
(the model's idempotencyToken trait) and keep it across its own retries, but a rerun or a
restart after a crash would then mint another. The token is derived from the operation's id.
"""
import hashlib
import json
import os
import sys

import boto3
import botocore.exceptions

operation = json.loads(os.environ["RETRYPROOF_OPERATION"])
payload = operation["payload"]
# Secrets Manager wants a token of 32 to 64 characters: the operation's id, hashed.
token = hashlib.sha256(operation["operationId"].encode()).hexdigest()[:32]


def report(outcome):
    sys.stdout.write(json.dumps(outcome) + "\n")
    sys.stdout.flush()


def log(message):
    sys.stderr.write(f"[aws-python] {message}\n")


client = boto3.client(
    "secretsmanager",
    endpoint_url=os.environ["RETRYPROOF_BASE_URL"],
    region_name="us-east-1",
    aws_access_key_id="retryproof",
    aws_secret_access_key="retryproof",
)

try:
    created = client.create_secret(
        Name=payload["orderId"],
        ClientRequestToken=token,
        SecretString=json.dumps({"paymentId": payload.get("paymentId"),
                                 "amount": payload.get("amount")}),
    )
    report({"outcome": "succeeded", "jobId": created["ARN"]})
except botocore.exceptions.ClientError as error:
    # The status and code where botocore keeps them: not error.statusCode.
    status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    code = error.response.get("Error", {}).get("Code", "")
    # AWS throttles with a 400: a refusal is told from a rate limit by its code.
    retryable = code in ("ThrottlingException", "ServiceUnavailable", "InternalServiceError")
    log(f"{status} {code}: {error}")
    if status is not None and 400 <= status < 500 and not retryable:
        report({"outcome": "failed", "reason": f"{status} {code}"})
    else:
        report({"outcome": "unknown", "idempotencyKey": token, "reason": f"{status} {code}"})
except botocore.exceptions.BotoCoreError as error:  # no answer: a drop, a reset, a timeout
    log(f"{type(error).__name__}: {error}")
    report({"outcome": "unknown", "idempotencyKey": token, "reason": type(error).__name__})
