import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'cap:public';
/** The route needs no tenant token (health, the internal module which has its own guard). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
