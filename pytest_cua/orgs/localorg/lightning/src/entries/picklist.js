// The entry script of pages with <one-picklist> placeholders (the server adds it to them).
import '@lwc/synthetic-shadow';
import Picklist from 'one/picklist';
import { mountEach } from 'one/mount';

mountEach('one-picklist', Picklist);
