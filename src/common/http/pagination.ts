import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const MAX_PER_PAGE = 100;
/** Keeps the row offset a safe integer that the database accepts; pages past the end are simply empty. */
export const MAX_PAGE = 1_000_000_000;

/** `page` (1-based) and `per_page` (default 20; above 100 is treated as 100). */
export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE, default: 1, example: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'page must be an integer' })
  @Min(1)
  @Max(MAX_PAGE)
  page: number = 1;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PER_PAGE, default: 20, example: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'per_page must be an integer' })
  @Min(1)
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'number' && value > MAX_PER_PAGE ? MAX_PER_PAGE : value,
  )
  per_page: number = 20;
}

export interface Pagination {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

export function pageOf<T>(items: T[], total: number, query: PageQuery): Page<T> {
  return {
    items,
    pagination: {
      page: query.page,
      per_page: query.per_page,
      total,
      total_pages: Math.ceil(total / query.per_page),
    },
  };
}

export function skipTake(query: PageQuery): { skip: number; take: number } {
  return { skip: (query.page - 1) * query.per_page, take: query.per_page };
}
