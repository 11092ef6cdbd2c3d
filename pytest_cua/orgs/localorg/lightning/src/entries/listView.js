// The entry script of pages with <one-list-view> placeholders (the server adds it to them).
import '@lwc/synthetic-shadow';
import 'lightning/iconSvgTemplatesStandard'; // the object icons, rendered at once
import ListView from 'one/listView';
import { mountEach } from 'one/mount';

mountEach('one-list-view', ListView);
