// The entry script of pages with <one-setup-tree> placeholders: every page of Lightning Setup.
import '@lwc/synthetic-shadow';
import SetupTree from 'one/setupTree';
import { mountEach } from 'one/mount';

mountEach('one-setup-tree', SetupTree);
