/**
 * The protobuf form of `/openapi/v2` that kubectl asks for by default
 * (`Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): gnostic's
 * `openapi.v2.Document`, which client-go's `OpenAPISchema()` decodes (there is no JSON fallback in
 * kubectl 1.32). Encoded with protobufjs from a schema declared below: the subset of gnostic's
 * `OpenAPIv2.proto` messages and fields the JSON document uses, with gnostic's field numbers (the
 * wire contract); oneofs are declared as plain optional fields, which encode the same bytes.
 * Vendor extensions and `default`/`enum`/`example` values travel as `Any.yaml` text, as gnostic
 * writes them.
 *
 * @module
 */
import protobuf from 'protobufjs';
import { stringify as toYaml } from 'yaml';

import type { Json } from '../store/object.js';
import { isObject } from '../store/object.js';

/** The media type of the protobuf OpenAPI v2 document. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

const PROTO = `
syntax = "proto3";
package openapi.v2;
message Any { string yaml = 2; }
message NamedAny { string name = 1; Any value = 2; }
message Info { string title = 1; string version = 2; string description = 3; }
message TypeItem { repeated string value = 1; }
message ItemsItem { repeated Schema schema = 1; }
message AdditionalPropertiesItem { Schema schema = 1; bool boolean = 2; }
message NamedSchema { string name = 1; Schema value = 2; }
message Properties { repeated NamedSchema additional_properties = 1; }
message Definitions { repeated NamedSchema additional_properties = 1; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5;
  double multiple_of = 6; double maximum = 7; bool exclusive_maximum = 8; double minimum = 9;
  bool exclusive_minimum = 10; int64 max_length = 11; int64 min_length = 12; string pattern = 13;
  int64 max_items = 14; int64 min_items = 15; bool unique_items = 16; int64 max_properties = 17;
  int64 min_properties = 18; repeated string required = 19; repeated Any enum = 20;
  AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23;
  repeated Schema all_of = 24; Properties properties = 25; bool read_only = 27; Any example = 30;
  repeated NamedAny vendor_extension = 31;
}
message BodyParameter { string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; }
message QueryParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 6; bool unique_items = 20; }
message PathParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; bool unique_items = 19; }
message NonBodyParameter { QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; }
message Parameter { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; }
message ParametersItem { Parameter parameter = 1; }
message SchemaItem { Schema schema = 1; }
message Response { string description = 1; SchemaItem schema = 2; }
message ResponseValue { Response response = 1; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message Responses { repeated NamedResponseValue response_code = 1; }
message Operation {
  repeated string tags = 1; string description = 3; string operation_id = 5; repeated string produces = 6;
  repeated string consumes = 7; repeated ParametersItem parameters = 8; Responses responses = 9;
  repeated string schemes = 10; repeated NamedAny vendor_extension = 13;
}
message PathItem {
  Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5; Operation patch = 8;
  repeated ParametersItem parameters = 9;
}
message NamedPathItem { string name = 1; PathItem value = 2; }
message Paths { repeated NamedPathItem path = 2; }
message StringArray { repeated string value = 1; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message ApiKeySecurity { string type = 1; string name = 2; string in = 3; string description = 4; }
message SecurityDefinitionsItem { ApiKeySecurity api_key_security = 2; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message Document {
  string swagger = 1; Info info = 2; Paths paths = 8; Definitions definitions = 9;
  repeated SecurityRequirement security = 12; SecurityDefinitions security_definitions = 13;
}
`;

let documentType: protobuf.Type | undefined;

function documentMessage(): protobuf.Type {
  documentType ??= protobuf.parse(PROTO, { keepCase: true }).root.lookupType('openapi.v2.Document');
  return documentType;
}

const anyOf = (v: unknown): Json => ({ yaml: toYaml(v) });

function extensions(o: Json): Json[] {
  return Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, v]) => ({ name, value: anyOf(v) }));
}

function schemaMessage(s: Json): Json {
  const m: Json = {};
  const str = (k: string, field: string): void => {
    if (typeof s[k] === 'string') m[field] = s[k];
  };
  str('$ref', '_ref');
  str('format', 'format');
  str('title', 'title');
  str('description', 'description');
  str('pattern', 'pattern');
  for (const [k, field] of [
    ['multipleOf', 'multiple_of'],
    ['maximum', 'maximum'],
    ['minimum', 'minimum'],
    ['maxLength', 'max_length'],
    ['minLength', 'min_length'],
    ['maxItems', 'max_items'],
    ['minItems', 'min_items'],
    ['maxProperties', 'max_properties'],
    ['minProperties', 'min_properties'],
  ] as const)
    if (typeof s[k] === 'number') m[field] = s[k];
  for (const [k, field] of [
    ['exclusiveMaximum', 'exclusive_maximum'],
    ['exclusiveMinimum', 'exclusive_minimum'],
    ['uniqueItems', 'unique_items'],
    ['readOnly', 'read_only'],
  ] as const)
    if (s[k] === true) m[field] = true;
  if (s['default'] !== undefined) m['default'] = anyOf(s['default']);
  if (s['example'] !== undefined) m['example'] = anyOf(s['example']);
  if (Array.isArray(s['enum'])) m['enum'] = s['enum'].map(anyOf);
  if (Array.isArray(s['required'])) m['required'] = s['required'];
  if (typeof s['type'] === 'string') m['type'] = { value: [s['type']] };
  const additional = s['additionalProperties'];
  if (typeof additional === 'boolean') m['additional_properties'] = { boolean: additional };
  else if (isObject(additional)) m['additional_properties'] = { schema: schemaMessage(additional) };
  const items = s['items'];
  if (isObject(items)) m['items'] = { schema: [schemaMessage(items)] };
  else if (Array.isArray(items)) m['items'] = { schema: items.filter(isObject).map(schemaMessage) };
  if (Array.isArray(s['allOf'])) m['all_of'] = s['allOf'].filter(isObject).map(schemaMessage);
  if (isObject(s['properties'])) {
    m['properties'] = {
      additional_properties: Object.entries(s['properties'])
        .filter((e): e is [string, Json] => isObject(e[1]))
        .map(([name, v]) => ({ name, value: schemaMessage(v) })),
    };
  }
  const ext = extensions(s);
  if (ext.length > 0) m['vendor_extension'] = ext;
  return m;
}

function parameterMessage(p: Json): Json {
  if (p['in'] === 'body') {
    return {
      parameter: {
        body_parameter: {
          name: p['name'],
          in: 'body',
          required: p['required'] === true,
          ...(isObject(p['schema']) ? { schema: schemaMessage(p['schema']) } : {}),
        },
      },
    };
  }
  const common = {
    required: p['required'] === true,
    in: p['in'],
    description: p['description'] ?? '',
    name: p['name'],
    type: p['type'] ?? '',
    unique_items: p['uniqueItems'] === true,
  };
  return {
    parameter: {
      non_body_parameter:
        p['in'] === 'path' ? { path_parameter_sub_schema: common } : { query_parameter_sub_schema: common },
    },
  };
}

function operationMessage(op: Json): Json {
  const responses = isObject(op['responses']) ? op['responses'] : {};
  return {
    tags: op['tags'],
    description: op['description'] ?? '',
    operation_id: op['operationId'],
    produces: op['produces'],
    consumes: op['consumes'],
    parameters: (Array.isArray(op['parameters']) ? op['parameters'] : [])
      .filter(isObject)
      .map(parameterMessage),
    responses: {
      response_code: Object.entries(responses)
        .filter((e): e is [string, Json] => isObject(e[1]))
        .map(([code, r]) => ({
          name: code,
          value: {
            response: {
              description: r['description'] ?? '',
              ...(isObject(r['schema']) ? { schema: { schema: schemaMessage(r['schema']) } } : {}),
            },
          },
        })),
    },
    schemes: op['schemes'],
    vendor_extension: extensions(op),
  };
}

/** Encodes a Swagger 2.0 document (as `documents.ts` builds it) as gnostic's `openapi.v2.Document`. */
export function encodeOpenApiV2(doc: Json): Uint8Array {
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  const definitions = isObject(doc['definitions']) ? doc['definitions'] : {};
  const message = {
    swagger: doc['swagger'],
    info: doc['info'],
    paths: {
      path: Object.entries(paths)
        .filter((e): e is [string, Json] => isObject(e[1]))
        .map(([name, item]) => {
          const value: Json = {};
          for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
            const op = item[method];
            if (isObject(op)) value[method] = operationMessage(op);
          }
          if (Array.isArray(item['parameters']))
            value['parameters'] = item['parameters'].filter(isObject).map(parameterMessage);
          return { name, value };
        }),
    },
    definitions: {
      additional_properties: Object.entries(definitions)
        .filter((e): e is [string, Json] => isObject(e[1]))
        .map(([name, s]) => ({ name, value: schemaMessage(s) })),
    },
    security: [{ additional_properties: [{ name: 'BearerToken', value: { value: [] } }] }],
    security_definitions: {
      additional_properties: [
        {
          name: 'BearerToken',
          value: {
            api_key_security: {
              type: 'apiKey',
              name: 'authorization',
              in: 'header',
              description: 'Bearer Token authentication',
            },
          },
        },
      ],
    },
  };
  const type = documentMessage();
  return type.encode(type.fromObject(message)).finish();
}

/** Decodes a protobuf OpenAPI v2 document into plain objects (field names as declared); for tests. */
export function decodeOpenApiV2(bytes: Uint8Array): Json {
  const type = documentMessage();
  return type.toObject(type.decode(bytes), { defaults: false, arrays: true });
}
