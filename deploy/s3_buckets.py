"""The app's two buckets, made once: media private (no policy: presigned links only), static readable by anyone,
objects only (no listing). Run with the app's Python (boto3) by deploy/stack and by the Ansible web role:

    AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... python deploy/s3_buckets.py ENDPOINT MEDIA_BUCKET STATIC_BUCKET

Prints "created NAME" for each bucket it made (nothing when both were there), so a caller can tell a change.
"""
import json
import sys

import boto3
from botocore.exceptions import ClientError


def main(endpoint: str, media: str, static: str) -> None:
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    for bucket in (media, static):
        try:
            s3.head_bucket(Bucket=bucket)
        except ClientError:
            s3.create_bucket(Bucket=bucket)
            print(f"created {bucket}")
    s3.put_bucket_policy(Bucket=static, Policy=json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": ["*"]}, "Action": ["s3:GetObject"],
        "Resource": [f"arn:aws:s3:::{static}/*"]}]}))
    try:
        s3.delete_bucket_policy(Bucket=media)
    except ClientError as error:
        if error.response["Error"]["Code"] != "NoSuchBucketPolicy":
            raise


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
