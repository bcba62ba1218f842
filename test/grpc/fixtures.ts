/** Protos shared by the gRPC descriptor tests. */

/** proto3, importing timestamp.proto: all four call types, nested messages, enums, maps, a oneof. */
export const SHOP_PROTO = `syntax = "proto3";
package shop.v1;

import "google/protobuf/timestamp.proto";

message Item {
  string id = 1;
  string name = 2;
  int64 price_cents = 3;
  map<string, Tag> tags_by_id = 4;
  Status status = 5;
  enum Status {
    STATUS_UNSPECIFIED = 0;
    ACTIVE = 1;
  }
  message Tag {
    string label = 1;
  }
  oneof contact {
    string email = 6;
    int32 phone_ext = 7;
  }
  optional string note = 8;
  google.protobuf.Timestamp created_at = 9;
}

message GetRequest {
  string id = 1;
}

service Shop {
  rpc Get(GetRequest) returns (Item);
  rpc Watch(GetRequest) returns (stream Item);
  rpc Upload(stream Item) returns (GetRequest);
  rpc Chat(stream GetRequest) returns (stream Item);
}
`;
