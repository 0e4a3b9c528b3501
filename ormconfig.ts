import 'reflect-metadata';
import 'dotenv/config';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app.config';
import { dataSourceOptions } from './src/database/data-source';

/** The data source the TypeORM CLI uses (migration:generate). */
export default new DataSource({
  ...dataSourceOptions(loadConfig().database.url),
  entities: [__dirname + '/src/**/*.entity.ts'],
});
