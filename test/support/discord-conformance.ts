/**
 * Checks the REST request bodies a bot sends to Discord against Discord's official OpenAPI schema
 * (a vendored subset, see specs/), plus the rules the schema does not encode: the ones Discord
 * enforces (2,000 characters of content) and the ones our product promises (a bot message never
 * pings @everyone, @here or a role, and always says so with `allowed_mentions`).
 *
 * specs/discord-rest.schema.json was extracted from Discord's openapi.json (MIT, see
 * specs/discord-LICENSE) with:
 *   npx tsx test/support/specs/extract-schemas.ts ../shared/specs/discord/openapi.json \
 *     test/support/specs/discord-rest.schema.json MessageCreateRequest MessageEditRequestPartial \
 *     CreateTextThreadWithMessageRequest CreateTextThreadWithoutMessageRequest \
 *     UpdateThreadRequestPartial UpdateGuildChannelRequestPartial \
 *     'BulkOverwriteApplicationCommandsRequest=PUT /applications/{application_id}/commands' \
 *     CreateMessageInteractionCallbackRequest IncomingWebhookRequestPartial \
 *     IncomingWebhookUpdateRequestPartial ModalInteractionCallbackRequest
 * To check another route, add its request schema to that command and its name to `RequestSchema`.
 * Where the spec contradicts Discord itself, `errata` below says so and follows Discord.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const schemaDocument = JSON.parse(
  readFileSync(new URL('./specs/discord-rest.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/** The request schemas the fake knows, by their names in Discord's spec. */
export type RequestSchema =
  | 'MessageCreateRequest'
  | 'MessageEditRequestPartial'
  | 'CreateTextThreadWithMessageRequest'
  | 'CreateTextThreadWithoutMessageRequest'
  | 'UpdateThreadRequestPartial'
  | 'UpdateGuildChannelRequestPartial'
  | 'BulkOverwriteApplicationCommandsRequest'
  | 'CreateMessageInteractionCallbackRequest'
  | 'IncomingWebhookRequestPartial'
  | 'IncomingWebhookUpdateRequestPartial'
  | 'ModalInteractionCallbackRequest';

/**
 * Where the OpenAPI document disagrees with Discord's documentation and with what Discord accepts,
 * the fake follows Discord, so that a conforming bot is not flagged:
 * - `default_member_permissions` is "?string" in the documentation and discord.js sends a string of
 *   digits ("8192"), while the spec says integer; Discord takes both.
 */
const errata: { schema: string; property: string; replacement: unknown }[] = [
  {
    schema: 'ApplicationCommandUpdateRequest',
    property: 'default_member_permissions',
    replacement: {
      anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^(0|[1-9][0-9]*)$' }, { type: 'null' }],
    },
  },
];
const definitions = schemaDocument.$defs as Record<string, { properties: Record<string, unknown> }>;
for (const { schema, property, replacement } of errata) definitions[schema]!.properties[property] = replacement;

// Formats (snowflake, nonce, uri, …) are annotations here: the checks that matter are shapes, types,
// lengths and enums. Snowflakes still get checked by the schema's `pattern`.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schemaDocument, 'discord');
const validators = new Map<RequestSchema, ValidateFunction>();

function validatorFor(name: RequestSchema): ValidateFunction {
  let validate = validators.get(name);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `discord#/$defs/${name}` });
    validators.set(name, validate);
  }
  return validate;
}

/** Discord's limit for a message's `content` (the spec says 4,000, which only Nitro users get). */
export const maxContentLength = 2000;

/** Every way `body` breaks the named schema, or Discord's unwritten limits; empty when it conforms. */
export function specProblems(schema: RequestSchema, body: unknown): string[] {
  const problems: string[] = [];
  const validate = validatorFor(schema);
  if (!validate(body)) {
    // A nullable field is `oneOf [null, schema]`: its failure also reports "must be null" and "must
    // match exactly one schema"; keep the error that says what is wrong, when there is one.
    const all = validate.errors ?? [];
    const noise = (error: (typeof all)[number]) =>
      error.keyword === 'oneOf' ||
      error.keyword === 'anyOf' ||
      (error.keyword === 'type' && error.params.type === 'null');
    const specific = all.filter((error) => !noise(error));
    for (const error of specific.length > 0 ? specific : all) {
      problems.push(
        `spec ${schema}: ${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
      );
    }
  }
  const content = (body as { content?: unknown } | null)?.content;
  if ((schema === 'MessageCreateRequest' || schema === 'MessageEditRequestPartial') && typeof content === 'string') {
    if (content.length > maxContentLength) {
      problems.push(`content is ${content.length} characters; a bot message holds at most ${maxContentLength}`);
    }
  }
  return problems;
}

interface AllowedMentions {
  parse?: string[] | null;
  roles?: string[] | null;
}

/**
 * Our product's rule for a message the bot posts: `allowed_mentions` is always set, and never lets
 * the text ping @everyone, @here or a role (model output must not ping a crowd). Discord itself
 * accepts such messages, so these problems do not fail the request.
 */
export function mentionPolicyProblems(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const allowed = (body as { allowed_mentions?: AllowedMentions | null }).allowed_mentions;
  if (allowed === undefined || allowed === null) {
    return ['bot message without allowed_mentions: Discord would ping every mention in its content'];
  }
  const problems: string[] = [];
  const parse = allowed.parse ?? [];
  if (parse.includes('everyone'))
    problems.push('allowed_mentions.parse includes "everyone": the message may ping @everyone/@here');
  if (parse.includes('roles')) problems.push('allowed_mentions.parse includes "roles": the message may ping roles');
  if ((allowed.roles ?? []).length > 0)
    problems.push(`allowed_mentions.roles lists ${allowed.roles!.join(', ')}: the message may ping roles`);
  // Users may be pinged only by name (allowed_mentions.users), never by whatever the text holds.
  if (parse.includes('users'))
    problems.push('allowed_mentions.parse includes "users": any user mentioned in the text would be pinged');
  if ((allowed as { replied_user?: boolean }).replied_user === true)
    problems.push('allowed_mentions.replied_user is true: the reply pings its author');
  return problems;
}
