"""The app's buckets, made once: media private (no policy: presigned links only), static readable by anyone,
objects only (no listing), and any more named (the backups') private. Run with a Python that has boto3 by
deploy/stack and by the Ansible roles (AWS_CA_BUNDLE names the authority of MinIO's certificate):

    AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... python deploy/s3_buckets.py ENDPOINT MEDIA STATIC [PRIVATE...]

Prints "created NAME" for each bucket it made (nothing when both were there), so a caller can tell a change.
"""
import json
import sys

import boto3
from botocore.exceptions import ClientError


def main(endpoint: str, media: str, static: str, *private: str) -> None:
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    for bucket in (media, static, *private):
        try:
            s3.head_bucket(Bucket=bucket)
        except ClientError:
            s3.create_bucket(Bucket=bucket)
            print(f"created {bucket}")
    s3.put_bucket_policy(Bucket=static, Policy=json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": ["*"]}, "Action": ["s3:GetObject"],
        "Resource": [f"arn:aws:s3:::{static}/*"]}]}))
    for bucket in (media, *private):
        try:
            s3.delete_bucket_policy(Bucket=bucket)
        except ClientError as error:
            if error.response["Error"]["Code"] != "NoSuchBucketPolicy":
                raise


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
