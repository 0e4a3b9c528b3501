import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject } from 'class-validator';
import { OptionalNotNull } from './validators';

/**
 * The optional `variables` of a call's, a campaign's or a task's body: an object (left out, never null) of strings
 * up to 500 characters. Its keys and values are checked by the service, which names the bad key.
 */
export const VariablesField = (): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', maxLength: 500 } }),
    OptionalNotNull(),
    IsObject(),
  );

/** The optional `metadata` beside it: any object (left out, never null); its size is checked by the service. */
export const MetadataField = (): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: 'object', additionalProperties: true }),
    OptionalNotNull(),
    IsObject(),
  );
