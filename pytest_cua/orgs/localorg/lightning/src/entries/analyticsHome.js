// The entry script of pages with <one-report-list> placeholders (the Reports home).
import '@lwc/synthetic-shadow';
import 'lightning/iconSvgTemplatesStandard'; // the report icon, rendered at once
import ReportList from 'one/reportList';
import { mountEach } from 'one/mount';

mountEach('one-report-list', ReportList);
